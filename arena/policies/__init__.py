"""Kept so that bot files stored before the move to ``arena.bots.program`` still run."""
