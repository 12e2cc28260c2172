"""Reactor ("keep the reactor under 99", 2-6 players): its rules (``rules``), its built-in
policies (``policies``) and the JSON Schema of what its bots see and answer (``schema.json``).
The rulebook in our words, as a bot plays it, is ``seeds/reactor.md``; the engine's side is
``seeds/reactor-engine.md``."""

from arena.games.reactor.rules import REACTOR as GAME

__all__ = ["GAME"]
