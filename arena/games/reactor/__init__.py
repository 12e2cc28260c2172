"""Reactor ("keep the reactor under 99", 2-6 players): its rules (``rules``) and its built-in
policies (``policies``).  The rulebook in our words is ``seeds/reactor.md``."""

from arena.games.reactor.rules import REACTOR as GAME

__all__ = ["GAME"]
