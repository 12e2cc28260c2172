"""Tournament formats: which tables to play, in which seat order, with which deal.

A format only names games (:class:`~arena.core.pairing.Pairing`); an executor plays them.

* ``round_robin``: every combination of ``seats`` bots under every rotation of its seats.
* ``swiss``: a multiplayer Swiss, paired round by round on the standings.
* ``base``: what the formats share.
"""

from __future__ import annotations

import math
from typing import Literal

from arena.core.pairing import Pairing
from arena.tournament.formats.base import MAX_SEATS, MIN_SEATS, check_seats
from arena.tournament.formats.round_robin import iter_round_robin, round_robin
from arena.tournament.formats.swiss import (
    SwissRound,
    bye_count,
    swiss_round,
    swiss_rounds_needed,
    table_count,
    table_sizes,
)

__all__ = ["MAX_SEATS", "MIN_SEATS", "Pairing", "SwissRound", "bye_count", "iter_round_robin", "round_robin",
           "schedule_size", "swiss_round", "swiss_rounds_needed", "table_count", "table_sizes"]


def schedule_size(
    format: Literal["round_robin", "swiss"],
    n_bots: int,
    seats: int,
    games: int = 1,
    *,
    rotations: bool | None = None,
    rounds: int | None = None,
    min_seats: int | None = None,
) -> int:
    """Total games (Pairings) a schedule plays, for progress bars.

    ``rotations`` defaults to each format's default (on for round-robin, off for Swiss).
    A Swiss plays one deal per table per round, so ``games`` must be 1 there; ``rounds``
    defaults to ``swiss_rounds_needed``.
    """
    check_seats(seats)
    if format == "round_robin":
        if not seats <= n_bots:
            raise ValueError(f"seats ({seats}) cannot exceed the number of bots ({n_bots})")
        if games < 1:
            raise ValueError(f"games must be at least 1, got {games}")
        per_table = seats if rotations is None or rotations else 1
        return math.comb(n_bots, seats) * games * per_table
    if format == "swiss":
        if games != 1:
            raise ValueError("a Swiss plays one deal per table per round; use rounds, not games")
        sizes = table_sizes(n_bots, seats, min_seats)
        per_round = sum(sizes) if rotations else len(sizes)
        return per_round * (swiss_rounds_needed(n_bots, seats) if rounds is None else rounds)
    raise ValueError(f"unknown format {format!r}; expected 'round_robin' or 'swiss'")
