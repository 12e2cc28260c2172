"""What the referee hands back: each finished game's record, faults and logs, and each match."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from arena.core.faults import FaultRecord
from arena.games import GameResult


@dataclass(slots=True)
class GameReport:
    """One finished game: its full record (faults and stderr logs included) and timings."""

    index: int
    game_id: str
    record: dict[str, Any]
    faults: list[FaultRecord]
    logs: dict[int, str]
    started: str
    finished: str
    duration_ms: int
    starts: list[int] = field(default_factory=list)  # bot processes started for this game, per seat


@dataclass(slots=True)
class MatchReport:
    """A finished match: its games in order, the match points and who was disqualified."""

    games: list[GameReport]
    scores: list[int]
    winner: int | None
    disqualified: list[int]
    starts: list[int]
    hello_names: list[str | None]
    startup_ms: list[int | None]
    concurrent: list[int] = field(default_factory=list)  # games at once each bot offered
    batch: list[bool] = field(default_factory=list)  # whether each bot took requests in batches


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """A match to play: its seed, its id, and the results of its games already stored."""

    seed: str
    match_id: str = "match"
    done: tuple[GameResult, ...] = ()
    # For each game in ``done``, each seat's standing (see arena.referee.standing): a resumed match
    # carries on counting faults in a row where it stopped.
    standings: tuple[tuple[str, ...], ...] = ()
    starter: int | None = None  # the seat that starts the match's first game, if not the config's
