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
"""

from __future__ import annotations

from collections.abc import Iterable

CLEAN, FAULT, OUT, NEUTRAL = "clean", "fault", "out", "neutral"


def standing(forfeited: bool, collateral: Iterable[bool]) -> str:
    """The standing of a seat that did or did not forfeit, given its faults in the game (for
    each, whether it was collateral)."""
    if not forfeited:
        return CLEAN
    flags = list(collateral)
    if not flags:
        return OUT
    return NEUTRAL if all(flags) else FAULT
