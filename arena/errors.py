"""The harness's named errors.  Only the CLI turns them into a message and an exit status."""

from __future__ import annotations


class ArenaError(Exception):
    """Base of every error a user can act on; its message says what to do."""


class UsageError(ArenaError):
    """Bad command-line arguments (exit status 2)."""


class ConfigError(ArenaError):
    """A tournament file or game configuration that the rules or the harness do not allow (the
    one such error: the games raise it too)."""


class UnknownBot(ArenaError):
    """A bot name that is not registered, or a path that does not exist."""


class StorageError(ArenaError):
    """The database cannot be opened, or holds something unexpected."""


class NoDatabase(StorageError):
    """No database where one must already be (a read-only command given a new location)."""
