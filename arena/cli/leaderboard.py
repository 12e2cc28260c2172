"""The ratings table as the CLI prints it: aligned text, csv, json or markdown.

Besides TrueSkill's numbers each line shows how sure its place is (arena.results.board,
docs/confidence.md): ``ranks``, the 95% range of the bot's rank by mean place; ``place_95``, the
95% interval of its mean place; ``p_next``, the confidence that it is truly better than the bot
on the next line; and ``next``, ``separated`` when the results put it ahead of that bot,
``tied`` when the two are within the indifference zone, ``open?`` when neither is settled yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.cli.output import render

if TYPE_CHECKING:
    from arena.results import Board, BoardRow


COLUMNS = ("rank", "bot", "score", "mu", "sigma", "ranks", "games", "wins", "mean_place", "place_95",
           "p_next", "next", "faults")
NUMBER_COLUMNS = frozenset({"rank", "score", "mu", "sigma", "ranks", "games", "wins", "mean_place", "place_95",
                            "p_next"})
MARKS = {"separated": "separated", "tied": "tied", "open": "open?", None: "-"}


def faults_text(faults: dict[str, int]) -> str:
    """``kind:count`` separated by spaces: no commas, so it needs no quoting and splits easily."""
    return " ".join(f"{kind}:{n}" for kind, n in faults.items()) or "-"


def _cells(row: BoardRow, digits: int | None) -> list[str]:
    def num(x: float) -> str:
        return repr(x) if digits is None else f"{x:.{digits}f}"

    ranks = str(row.rank_low) if row.rank_low == row.rank_high else f"{row.rank_low}-{row.rank_high}"
    p = "-" if row.p_better_than_next is None else num(row.p_better_than_next)
    return [str(row.rank), row.bot, num(row.score), num(row.mu), num(row.sigma), ranks, str(row.games),
            str(row.wins), num(row.mean_place), f"{num(row.mean_place_low)}-{num(row.mean_place_high)}", p,
            MARKS[row.next_status], faults_text(row.faults)]


def format_board(board: Board, fmt: str = "table") -> str:
    """Render a leaderboard as ``table`` (aligned text), ``csv``, ``json`` or ``markdown``; csv
    keeps every digit, the text formats two."""
    cells = [_cells(r, None if fmt == "csv" else 2) for r in board.rows]
    return render(COLUMNS, cells, fmt, records=[r.to_json() for r in board.rows], right=NUMBER_COLUMNS)
