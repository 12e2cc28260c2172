"""A pairing: one match to play, as a tournament's format decides it and an executor plays it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game to play: who sits where, and which deal they play."""

    id: str  # unique within a tournament; storage skips stored ids on resume
    round: int  # 1-based Swiss round, or the repetition number of a round-robin
    table: int  # 1-based table number within the round
    seats: tuple[str, ...]  # bot names in seat order, seat 0 (the starter) first
    deal: str  # seed label of the deal, shared by the rotations of one table
    rotation: int  # which cyclic rotation of the drawn seat order this is (0 = as drawn)
