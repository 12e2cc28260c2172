"""A live progress line on stderr: games and matches done, games/s, time left, and (under a stop
rule) the pairs still open; now and then the top of the table with its certainty.

On a terminal the line is redrawn in place and never wider than the terminal (``COLUMNS`` or
the terminal's own width), so it never wraps: the least useful parts go first, then the rest is
cut with an ellipsis.  A warning or the standings are printed on lines of their own above it
(the line is cleared, the text printed, the line drawn again: :func:`arena.core.terminal.
above_live_line`).  Elsewhere (a pipe, a log file) it prints a full line every few seconds.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from arena.core.terminal import LIVE_LOCK, above_live_line, set_live_line

if TYPE_CHECKING:  # (the tournament package is costly to import, and a run imports it anyway)
    from arena.ratings.confidence import Ranking
    from arena.tournament import Progress

SEPARATOR = " · "
ELLIPSIS = "…"


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def terminal_width(stream: TextIO) -> int:
    """Columns to draw in: ``COLUMNS`` if set (as a test or a user sets it), else the terminal's."""
    return max(shutil.get_terminal_size((80, 24)).columns, 20)


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, an ellipsis marking the cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + ELLIPSIS


def parts(p: Progress) -> list[tuple[int, str]]:
    """The line's parts in order, each with its priority (0 is kept longest)."""
    elapsed = time.monotonic() - p.started
    out: list[tuple[int, str]] = []
    if p.games_max is not None:  # a stop rule: the length is not known, its bound is
        out.append((0, f"games {p.games_done + p.games_skipped}/≤{p.games_max}"))
        out.append((1, f"matches {p.matches_done}"))
        out.append((3, f"block {p.blocks_done + 1}"))
    else:
        games = p.games_done + p.games_skipped
        out.append((0, f"games {games}"))
        out.append((0, f"matches {p.matches_done}/{p.matches_total}"))
    if p.games_skipped:
        out.append((4, f"{p.games_skipped} already stored"))
    out.append((3, f"{p.rate:.1f} games/s"))
    if p.games_max is None:
        if p.matches_done >= p.matches_total:
            left = _clock(0)
        elif p.matches_played:  # time per match played in this run, not counting stored ones
            left = _clock(elapsed / p.matches_played * max(p.matches_total - p.matches_done, 0))
        else:
            left = "?"
        out.append((1, f"{left} left"))
    elif p.decision is not None:
        still = [f"{t.upper}>{t.lower}" for t in p.decision.unresolved]
        out.append((2, "open: " + ", ".join(still) if still else "every pair settled"))
    return out


def line(p: Progress, width: int) -> str:
    """The progress line in at most ``width`` characters: parts dropped by priority, then cut."""
    kept = parts(p)
    text = SEPARATOR.join(t for _, t in kept)
    while len(text) > width and len({prio for prio, _ in kept}) > 1:
        worst = max(prio for prio, _ in kept)
        kept = [(prio, t) for prio, t in kept if prio != worst]
        text = SEPARATOR.join(t for _, t in kept)
    return fit(text, width)


def standings_lines(ranking: Ranking, games: int, top: int = 5) -> list[str]:
    """The top of the table by mean place with its certainty: each bot's mean place and 95%
    interval, and for each bot below the first the chance that the one above is better."""
    lines = [f"standings after {games} games (by mean place; p: chance the bot above is truly better):"]
    width = max((len(b.bot) for b in ranking.bots[:top]), default=0)
    for i, b in enumerate(ranking.bots[:top]):
        text = f"  {b.rank:>2}  {b.bot:<{width}}  {b.mean_place:.2f} ({b.low:.2f}-{b.high:.2f})"
        if i > 0:
            n = ranking.neighbours[i - 1]
            text += f"  p {n.p_upper_better:.2f} {n.status}"
        lines.append(text)
    if len(ranking.bots) > top:
        lines.append(f"  ... and {len(ranking.bots) - top} more")
    return lines


class ProgressBar:
    """Redraws one line on a terminal; elsewhere prints a line every few seconds.  Keeps the
    latest progress (``progress``) also when disabled, and ends its line on :meth:`close` or at
    the end of a ``with`` block.  While it is open on a terminal, warnings print above it."""

    def __init__(self, enabled: bool = True, stream: TextIO | None = None, width: int | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self.width = width  # None: the terminal's, looked up at each draw (a window may be resized)
        self.last = 0.0
        self.drawn = False
        self.progress: Progress | None = None  # the latest update

    def __enter__(self) -> "ProgressBar":
        if self.enabled and self.tty:
            set_live_line(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def columns(self) -> int:
        # One column short of the edge: a terminal that wraps on the last column would start a new line.
        return (self.width or terminal_width(self.stream)) - 1

    def text(self, p: Progress) -> str:
        """The line as drawn now."""
        return line(p, self.columns())

    def update(self, p: Progress) -> None:
        self.progress = p
        if not self.enabled:
            return
        now = time.monotonic()
        final = p.games_max is None and p.matches_done >= p.matches_total
        if self.tty and (now - self.last > 0.1 or final):
            with LIVE_LOCK:
                self._draw(p)
            self.last = now
        elif not self.tty and (now - self.last > 5 or final):
            self.stream.write(SEPARATOR.join(t for _, t in parts(p)) + "\n")
            self.stream.flush()
            self.last = now

    def _draw(self, p: Progress) -> None:
        self.stream.write("\r\x1b[K" + self.text(p))
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        """Blank the line (something else is about to be printed)."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False

    def redraw(self) -> None:
        """Draw the latest progress again (after something was printed above)."""
        if self.enabled and self.tty and self.progress is not None:
            self._draw(self.progress)

    def print_above(self, lines: Sequence[str]) -> None:
        """Print ``lines`` on lines of their own (above the live line on a terminal, cut to its width)."""
        if not self.enabled:
            return
        with above_live_line():
            width = self.columns() if self.tty else None
            for text in lines:
                self.stream.write((fit(text, width) if width else text) + "\n")
            self.stream.flush()

    def close(self) -> None:
        """End the line drawn on a terminal (once, however often it is called)."""
        if self.enabled and self.tty:
            set_live_line(None)
            if self.drawn:
                self.stream.write("\n")
                self.stream.flush()
                self.drawn = False
