"""What an executor is given: a :class:`Task` (one match to play) and the :class:`PlayConfig`
every job of a tournament is played under.  The events an executor reports carry the task."""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.pairing import Pairing
from arena.games import GameConfig, GameResult
from arena.referee import BotSpec, RefereeConfig


@dataclass(frozen=True, slots=True)
class Task:
    """One match to play: a pairing, its bots, its seed, and the games of it already stored."""

    pairing: Pairing
    match_id: str
    seed: str
    bots: tuple[BotSpec, ...]
    done: tuple[GameResult, ...] = ()
    standings: tuple[tuple[str, ...], ...] = ()  # of the games in done, by seat (see MatchPlan)


@dataclass(frozen=True, slots=True)
class PlayConfig:
    """What every job of a tournament is played under: the referee's policies and the game."""

    referee: RefereeConfig
    game: str
    game_config: GameConfig
