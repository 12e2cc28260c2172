"""A validated tournament definition: what a tournament file says, as plain data.

:mod:`arena.tournament.file` reads it from TOML (and declares each field, its default and its
bounds); the formats and the runner read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.games.base import GameConfig
from arena.ratings.confidence import ALPHA, DELTA
from arena.referee import RefereeConfig

# A setting stored only when it differs from its default: it came after tournaments were first
# stored, and a tournament stored before it existed must still compare equal on resume.
_WHEN_SET = {"stored": "when set"}

STOP_RULES = ("none", "settled")
MAX_STOP_GAMES = 10_000_000


@dataclass(frozen=True, slots=True)
class BotEntry:
    """A bot of the tournament: a registered name (``NAME@N`` for one version), or a name with a
    path (a file, or a folder or archive with a ``bot.toml``) or a command line to register."""

    name: str
    path: Path | None = None
    command: str | None = None

    @property
    def source(self) -> str | None:
        """What to register it from, if anything."""
        return str(self.path) if self.path is not None else self.command

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, **({"path": str(self.path)} if self.path else {}),
                **({"command": self.command} if self.command else {})}


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """A validated tournament definition; ``to_json`` is what storage keeps (and compares on resume).

    ``options`` holds the formats' own fields by name (``games``, ``rounds``, ``min_seats``):
    this format's as the file gives them, every other format's at its default, so that the
    stored spec names every field as it always has."""

    name: str
    game: str
    format: str
    seats: int
    bots: tuple[BotEntry, ...]
    seed: str
    rotations: bool
    duplicate: bool
    variants: tuple[str, ...]
    points: int | None
    time: dict[str, int]
    sandbox: dict[str, Any]
    concurrent: int = field(default=RefereeConfig().concurrent, metadata=_WHEN_SET)
    faults_to_disqualify: int = field(default=RefereeConfig().faults_to_disqualify, metadata=_WHEN_SET)
    options: dict[str, Any] = field(default_factory=dict)
    # ``[stop]`` with rule "settled": rule, alpha, delta, max_games; None: the schedule is played whole.
    stop: dict[str, Any] | None = field(default=None, metadata=_WHEN_SET)

    def with_stop(self, rule: str | None = None, max_games: int | None = None) -> TournamentSpec:
        """This spec with ``arena run --stop RULE --max-games N`` put over its ``[stop]`` table."""
        current = dict(self.stop or {"rule": "none"})
        if rule is not None:
            if rule not in STOP_RULES:
                raise ConfigError(f"--stop must be one of {', '.join(STOP_RULES)}, not {rule!r}")
            current["rule"] = rule
        if max_games is not None:
            if not 1 <= max_games <= MAX_STOP_GAMES:  # as max_games under [stop] is
                raise ConfigError(f"--max-games must be from 1 to {MAX_STOP_GAMES:,}, not {max_games}")
            current["max_games"] = max_games
        if current["rule"] == "none":
            return replace(self, stop=None)
        if "max_games" not in current:
            raise ConfigError("the stop rule needs a maximum: --max-games N, or max_games under [stop]")
        return replace(self, stop={"alpha": ALPHA, "delta": DELTA, **current})

    def game_config(self) -> GameConfig:
        return GameConfig(players=self.seats, variants=self.variants, points=self.points)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "options":
                out.update(value)
            elif f.metadata.get("stored") != "when set" or value != f.default:
                out[f.name] = _json(value)
        return out


def _json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [item.to_json() if isinstance(item, BotEntry) else item for item in value]
    return value
