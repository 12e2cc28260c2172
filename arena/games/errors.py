"""The rules engines' errors: their own module, so that every other module of the games
(``base``, ``chance``, the engines) imports them without importing each other."""

from __future__ import annotations


class GameError(ValueError):
    """Base class of the rules engines' errors."""


class ConfigError(GameError):
    """A game configuration the rules do not allow (player count, variant, starter...)."""


class IllegalAction(GameError):
    """An action outside the legal set offered at the current decision."""
