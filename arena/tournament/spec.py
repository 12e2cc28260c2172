"""A validated tournament definition: what a tournament file says, as plain data.

:mod:`arena.tournament.file` reads it from TOML; the formats and the runner read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games.base import GameConfig
from arena.referee import DEFAULT_CONCURRENT, DEFAULT_FAULTS_TO_DISQUALIFY
from protocol.messages import Limits


@dataclass(frozen=True, slots=True)
class BotEntry:
    """A bot of the tournament: a registered name, or a name with a path to register."""

    name: str
    path: Path | None = None


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """A validated tournament definition; ``to_json`` is what storage keeps (and compares on resume)."""

    name: str
    game: str
    format: str
    seats: int
    bots: tuple[BotEntry, ...]
    seed: str
    games: int = 1
    rounds: int | None = None
    rotations: bool = True
    duplicate: bool = True
    variants: tuple[str, ...] = ()
    points: int | None = None
    min_seats: int | None = None
    time: dict[str, int] = field(default_factory=lambda: {"decision": Limits().decision_ms, "game": Limits().game_ms,
                                                          "startup": Limits().startup_ms})
    sandbox: dict[str, Any] = field(default_factory=lambda: {"mode": "auto"})
    concurrent: int = DEFAULT_CONCURRENT
    faults_to_disqualify: int = DEFAULT_FAULTS_TO_DISQUALIFY

    def game_config(self) -> GameConfig:
        return GameConfig(players=self.seats, variants=self.variants, points=self.points)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "game": self.game, "format": self.format, "seats": self.seats,
            "bots": [{"name": b.name, **({"path": str(b.path)} if b.path else {})} for b in self.bots],
            "seed": self.seed, "games": self.games, "rounds": self.rounds, "rotations": self.rotations,
            "duplicate": self.duplicate, "variants": list(self.variants), "points": self.points,
            "min_seats": self.min_seats, "time": self.time, "sandbox": self.sandbox,
            # Only when set: a tournament stored before the field existed still resumes.
            **({"concurrent": self.concurrent} if self.concurrent != DEFAULT_CONCURRENT else {}),
            **({"faults_to_disqualify": self.faults_to_disqualify}
               if self.faults_to_disqualify != DEFAULT_FAULTS_TO_DISQUALIFY else {}),
        }
