"""What an executor reports while it plays: one typed event per finished game and per match
that ends, the same from every backend and over every wire (a worker's pipe, a Dask queue).

Every match given to an executor ends with exactly one :class:`MatchFinished` or
:class:`MatchFailed`, after the :class:`GameFinished` of each game it played.
"""

from __future__ import annotations

from dataclasses import dataclass
from arena.execution.tasks import Task
from arena.referee import GameReport


@dataclass(frozen=True, slots=True)
class GameFinished:
    """A game of ``task``'s match is over: the coordinator stores it at once."""

    task: Task
    report: GameReport

    @property
    def match_id(self) -> str:
        return self.task.match_id


@dataclass(frozen=True, slots=True)
class MatchFinished:
    """A match is over: every game it needed is played (and was reported)."""

    match_id: str


@dataclass(frozen=True, slots=True)
class MatchFailed:
    """A match could not be finished (a harness error, a worker lost); a rerun plays what is missing."""

    match_id: str
    message: str


Event = GameFinished | MatchFinished | MatchFailed
MatchOver = (MatchFinished, MatchFailed)  # the events that end a match
