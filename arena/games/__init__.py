"""The registry of games.  Each game is a pure rules module; nothing here does I/O."""

from __future__ import annotations

from arena.games.base import (
    Action,
    ConfigError,
    Decision,
    Game,
    GameConfig,
    GameError,
    GameResult,
    IllegalAction,
    Observation,
    State,
)
from arena.games.chance import Chance, ReplayChance, ReplayError, SeededChance
from arena.games.powder_keg.rules import POWDER_KEG
from arena.games.reactor.rules import REACTOR

REGISTRY: dict[str, Game] = {game.name: game for game in (REACTOR, POWDER_KEG)}


def get_game(name: str) -> Game:
    """The registered game called ``name``, or a :class:`ConfigError` listing the games."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown game {name!r} (games: {', '.join(REGISTRY)})") from None


__all__ = [
    "Action", "Chance", "ConfigError", "Decision", "Game", "GameConfig", "GameError", "GameResult",
    "IllegalAction", "Observation", "REGISTRY", "ReplayChance", "ReplayError", "SeededChance", "State",
    "get_game",
]
