"""What a referee keeps of the matches and games in play, and of the requests a bot owes: plain
data, shared by the seats (which hold their requests and games) and the table (which plays them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.core.faults import FaultRecord
from arena.games import State
from arena.games.match import Match
from arena.referee.reports import GameReport

Action = dict[str, Any]


@dataclass(slots=True, eq=False)
class MatchInPlay:
    """One match being played: its games so far and who is out of it."""

    number: int
    match: Match
    seed: str
    match_id: str
    reports: list[GameReport] = field(default_factory=list)
    disqualified: set[int] = field(default_factory=set)
    faults_in_a_row: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    log_chars: list[int] = field(default_factory=list)  # stderr kept so far per seat (see kept_log)


@dataclass(slots=True, eq=False)
class GameInPlay:
    """One game in play, and what each seat has been told of it."""

    run: MatchInPlay
    state: State
    index: int
    game_id: str
    seed: str
    started: str
    t0: float
    fault: list[FaultRecord | None]
    cursor: list[int]
    forced: list[list[dict[str, Any]]]
    time_left_ms: list[int]  # CPU time left of each seat's game budget
    wall_left_ms: list[int]  # wall-clock time left of it (wall_factor times the CPU budget)
    generation: list[int]  # each seat's process (its start count) that got game_start; 0: none
    starts: list[int]
    extra: list[dict[str, Any]] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    logs: dict[int, str] = field(default_factory=dict)
    asked: Pending | None = None  # the request it waits on, if any


@dataclass(slots=True, eq=False)
class Pending:
    """A request a bot owes an answer to."""

    request_id: int
    game: GameInPlay
    seat: int
    legal: list[Action]
    sent: float  # when it was sent (monotonic); its wall-clock limit runs from here
    deadline_ms: int  # the CPU time it may use
    wall_ms: int  # the wall-clock time within which its answer must arrive
    number: int  # the decision's index in the game
