"""A live progress line on stderr: matches done of total, games stored, games/s, time left."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # (the tournament package is costly to import, and a run imports it anyway)
    from arena.tournament import Progress


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class ProgressBar:
    """Redraws one line on a terminal; elsewhere prints a line every few seconds.  Keeps the
    latest progress (``progress``) also when disabled, and ends its line on :meth:`close` or at
    the end of a ``with`` block."""

    def __init__(self, enabled: bool = True, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self.width = width
        self.last = 0.0
        self.drawn = False
        self.progress: Progress | None = None  # the latest update

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def text(self, p: Progress) -> str:
        total = max(p.matches_total, 1)
        filled = int(self.width * min(p.matches_done, total) / total)
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.monotonic() - p.started
        left = "?"
        if p.matches_done >= p.matches_total:
            left = _clock(0)
        elif p.matches_played:  # time per match played in this run, not counting stored ones
            left = _clock(elapsed / p.matches_played * max(p.matches_total - p.matches_done, 0))
        return (f"[{bar}] {p.matches_done}/{p.matches_total} matches, {p.games_done} games "
                f"({p.games_skipped} already stored), {p.rate:.1f} games/s, {left} left")

    def update(self, p: Progress) -> None:
        self.progress = p
        if not self.enabled:
            return
        now = time.monotonic()
        final = p.matches_done >= p.matches_total
        if self.tty and (now - self.last > 0.1 or final):
            self.stream.write("\r" + self.text(p).ljust(110)[:110])
            self.stream.flush()
            self.drawn = True
            self.last = now
        elif not self.tty and (now - self.last > 5 or final):
            self.stream.write(self.text(p) + "\n")
            self.stream.flush()
            self.last = now

    def close(self) -> None:
        """End the line drawn on a terminal (once, however often it is called)."""
        if self.enabled and self.tty and self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
