"""Kept so that bot files stored before the move to ``arena.bots.program`` still run.

May import ``arena.bots``; nothing imports it."""
