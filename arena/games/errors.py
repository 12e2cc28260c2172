"""The rules engines' errors: their own module, so that every other module of the games
(``base``, ``chance``, the engines) imports them without importing each other.

A configuration the rules do not allow is the harness's one :class:`~arena.errors.ConfigError`
(re-exported here), the same error a malformed tournament file raises: a caller catches one
class for both.  :class:`GameError` is for what goes wrong inside a game (an illegal action, a
forfeit out of turn, a record that does not replay).
"""

from __future__ import annotations

from arena.errors import ConfigError

__all__ = ["ConfigError", "GameError", "IllegalAction"]


class GameError(ValueError):
    """Base class of the rules engines' errors."""


class IllegalAction(GameError):
    """An action outside the legal set offered at the current decision."""
