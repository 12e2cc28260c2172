"""Bots against each other: one pair's head-to-head, every pair's crosstable, results by seat.

Thin over :mod:`arena.ratings.confidence` (the statistics and their calibration live there,
docs/confidence.md): this module only feeds it a pool's games grouped by table, so that the
seat rotations of one deal count as one unit of evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.ratings.confidence import (ALPHA, DELTA, Crosstable, PairStats, SeatStats, crosstable, head_to_head,
                                      seat_stats)
from arena.results.pool import Pool


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """``a`` against ``b`` where both sat (``pair``), and each one's results by seat in those games."""

    pair: PairStats
    seats: tuple[SeatStats, ...]  # a's lines first, then b's

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {**self.pair.to_json(), "seats": [s.to_json() for s in self.seats]}


def h2h(pool: Pool, a: str, b: str, *, alpha: float = ALPHA, delta: float = DELTA) -> HeadToHead:
    """How ``a`` did against ``b`` at the tables they shared."""
    pair = head_to_head(pool.outcomes, a, b, match_of=pool.match_of, alpha=alpha, delta=delta)
    shared = [o for o in pool.outcomes if a in o.bots and b in o.bots]
    seats = seat_stats(shared)
    ordered = tuple(s for s in seats if s.bot == a) + tuple(s for s in seats if s.bot == b)
    return HeadToHead(pair, ordered)


def cross(pool: Pool, order: list[str] | None = None, *, alpha: float = ALPHA, delta: float = DELTA) -> Crosstable:
    """Every pair's head-to-head (bots in ``order``, default by mean place) and every bot's
    results by seat; a pair that never met has ``games == 0``."""
    return crosstable(pool.outcomes, order, match_of=pool.match_of, alpha=alpha, delta=delta)
