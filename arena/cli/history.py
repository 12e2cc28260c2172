"""``arena ratings --history`` as the CLI prints it: a table of each bot's score (mu - 3 sigma)
at a dozen points of the pool, and a plot of the same in the terminal.

csv and markdown have one row per rated game (the table's columns, every game), json the full
history (mu and sigma of every update, arena.results.History).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from arena.cli.output import render

if TYPE_CHECKING:
    from arena.results import History

CHECKPOINTS = 12
PLOT_WIDTH = 64
PLOT_HEIGHT = 14
MARKERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _series(history: History) -> dict[str, dict[int, float]]:
    """Each bot's score after each game it played."""
    out: dict[str, dict[int, float]] = {bot: {} for bot in history.bots}
    for row in history.rows:
        out[row.bot][row.game] = row.score
    return out


def _at(points: dict[int, float], games: list[int]) -> list[float | None]:
    """The score as it stood after each of ``games`` (None before the bot's first game)."""
    out: list[float | None] = []
    seen = sorted(points)
    i, last = 0, None
    for g in games:
        while i < len(seen) and seen[i] <= g:
            last = points[seen[i]]
            i += 1
        out.append(last)
    return out


def checkpoints(total: int, count: int = CHECKPOINTS) -> list[int]:
    """About ``count`` game numbers spread evenly over 1..total, the last one included."""
    if total <= count:
        return list(range(1, total + 1))
    return sorted({max(1, round(total * i / count)) for i in range(1, count + 1)})


def plot(history: History, width: int = PLOT_WIDTH, height: int = PLOT_HEIGHT) -> list[str]:
    """Each bot's score as a line of its letter across the games (later bots drawn over earlier
    ones, so the best bot stays on top where lines cross), with a legend below."""
    series = _series(history)
    columns = min(width, history.games)
    games = [max(1, round(history.games * (c + 1) / columns)) for c in range(columns)]
    values = {bot: _at(points, games) for bot, points in series.items()}
    known = [v for vs in values.values() for v in vs if v is not None]
    if not known:
        return []
    low, high = min(known), max(known)
    span = high - low or 1.0
    grid = [[" "] * columns for _ in range(height)]
    for marker, bot in reversed(list(zip(MARKERS, history.bots))):  # the top bot last: drawn on top
        for c, v in enumerate(values[bot]):
            if v is not None:
                grid[height - 1 - round((v - low) / span * (height - 1))][c] = marker
    label = max(len(f"{high:.1f}"), len(f"{low:.1f}"))
    lines = []
    for r, row in enumerate(grid):
        y = high - span * r / (height - 1)
        tick = f"{y:.1f}" if r in (0, height // 2, height - 1) else ""
        lines.append(f"{tick.rjust(label)} |{''.join(row).rstrip()}")
    lines.append(" " * label + " +" + "-" * columns)
    left, right = "game 1", f"game {history.games}"
    lines.append(" " * (label + 2) + left + right.rjust(max(columns - len(left), len(right) + 1)))
    legend = [f"{m} {bot}" for m, bot in zip(MARKERS, history.bots)]
    lines.append("score (mu - 3 sigma): " + ", ".join(legend))
    return lines


def format_history(history: History, fmt: str = "table") -> str:
    """The history in ``fmt``: for people a table at checkpoints and a plot, for programs every game."""
    if fmt == "json":
        return orjson.dumps(history.to_json(), option=orjson.OPT_INDENT_2).decode() + "\n"
    games = checkpoints(history.games) if fmt == "table" else list(range(1, history.games + 1))
    series = _series(history)
    digits = 2 if fmt != "csv" else None
    cells = []
    values = {bot: _at(points, games) for bot, points in series.items()}
    for i, g in enumerate(games):
        row = [str(g)]
        for bot in history.bots:
            v = values[bot][i]
            row.append("-" if v is None else (repr(v) if digits is None else f"{v:.{digits}f}"))
        cells.append(row)
    text = render(("game", *history.bots), cells, fmt, right=frozenset(("game", *history.bots)))
    if fmt == "table":
        text += "\n" + "\n".join(plot(history)) + "\n"
    return text
