"""Powder Keg (2-5 players, a standard deck, three variants): its rules (``rules``), its
built-in policies (``policies``) and the JSON Schema of what its bots see and answer
(``schema.json``).  The game's name is ``powder-keg``; its package is the name with ``_`` for
``-``.  The rulebook in our words, as a bot plays it, is ``seeds/powder-keg.md``; the engine's
side is ``seeds/powder-keg-engine.md``."""

from arena.games.powder_keg.rules import POWDER_KEG as GAME

__all__ = ["GAME"]
