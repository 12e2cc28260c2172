"""The registry of games.  Each game is a pure rules module; nothing here does I/O.

A game is one folder here (``reactor/``, ``powder_keg/``): its rules, its policies, the JSON
Schema of what its bots see and answer (``schema.json``) and its entry ``GAME`` (a
:class:`Game`: name, seats, variants, decision points).  The registry finds the folders; nothing
else in the harness names a game.

May import ``arena.core`` and ``arena.errors`` only: the rules know no harness.
"""

from __future__ import annotations

import importlib
import pkgutil

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


def _discover() -> dict[str, Game]:
    """Every game package here (a folder whose ``__init__`` exports ``GAME``), by name, in the
    order of their names: a new game is a new folder, and nothing else to register."""
    found: dict[str, Game] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name.replace("_", "-")):
        if module.ispkg:
            game = getattr(importlib.import_module(f"{__name__}.{module.name}"), "GAME", None)
            if isinstance(game, Game):
                if module.name != game.name.replace("-", "_"):
                    raise RuntimeError(f"game {game.name!r} lives in {module.name}/: a game's folder is its name "
                                       "with '_' for '-'")
                found[game.name] = game
    return found


REGISTRY: dict[str, Game] = _discover()


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
