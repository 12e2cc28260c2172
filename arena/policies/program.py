"""The old import path of :mod:`arena.bots.program`: bundled bots stored in a database before
the move import ``arena.policies.program``, and a stored bot's file never changes."""

from arena.bots.program import PolicyBot, main

__all__ = ["PolicyBot", "main"]
