"""How one seat's game counts towards disqualification (``faults_to_disqualify`` faulty games
in a row).  One rule for the three places that need it: the referee counting live, a resumed
match counting its stored games again, and `arena games` marking disqualified seats.  A resumed
match must disqualify exactly as an uninterrupted one, so they must never disagree.

A seat's game is
* ``CLEAN`` when it played to the end: its count of faults in a row starts again;
* ``FAULT`` when it forfeited for a fault of its own in this game: the count goes up;
* ``NEUTRAL`` when every fault it has here is collateral (its bot was stopped for a fault in
  another game played at the same time, which counted there): neither;
* ``OUT`` when it forfeited with no fault at all: it was already disqualified from the match.

:func:`step` counts one game; the referee (live and on resume) and the tournament (is a stored
match complete?) both count through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum


class Standing(StrEnum):
    """How one seat's game counts towards disqualification (see the module docstring)."""

    CLEAN = "clean"
    FAULT = "fault"
    OUT = "out"
    NEUTRAL = "neutral"


CLEAN, FAULT, OUT, NEUTRAL = Standing.CLEAN, Standing.FAULT, Standing.OUT, Standing.NEUTRAL


def standing(forfeited: bool, collateral: Iterable[bool]) -> Standing:
    """The standing of a seat that did or did not forfeit, given its faults in the game (for
    each, whether it was collateral)."""
    if not forfeited:
        return CLEAN
    flags = list(collateral)
    if not flags:
        return OUT
    return NEUTRAL if all(flags) else FAULT


def step(counted: Standing | str, in_a_row: int, out: bool, threshold: int) -> tuple[int, bool]:
    """A seat's faulty games in a row, and whether it is out of the match, after one more game
    whose standing is ``counted`` (``threshold`` faulty games in a row put it out)."""
    if counted == CLEAN:
        return 0, out
    if counted == OUT:
        return in_a_row, True
    if counted == FAULT:
        return in_a_row + 1, out or in_a_row + 1 >= threshold
    return in_a_row, out


def out_of_match(games: Iterable[Sequence[Standing | str]], threshold: int, seats: int) -> set[int]:
    """The seats disqualified after these games of a match (each game's standings by seat)."""
    in_a_row, out = [0] * seats, [False] * seats
    for standings in games:
        for seat, counted in enumerate(standings):
            in_a_row[seat], out[seat] = step(counted, in_a_row[seat], out[seat], threshold)
    return {seat for seat in range(seats) if out[seat]}


def disqualified_seats(forfeited: Sequence[bool], collateral: Sequence[Iterable[bool]]) -> list[int]:
    """The seats of one game that were already out of its match (:data:`OUT`): they forfeited
    with no fault in this game, so a listing must say why they lost (``collateral[s]``: for each
    fault of seat ``s`` in the game, whether it was collateral)."""
    return [s for s, (gone, flags) in enumerate(zip(forfeited, collateral)) if standing(gone, flags) == OUT]
