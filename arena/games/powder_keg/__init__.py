"""Powder Keg (2-5 players, a standard deck, three variants): its rules (``rules``) and its
built-in policies (``policies``).  The game's name is ``powder-keg``; its package is the name
with ``_`` for ``-``.  The rulebook in our words is ``seeds/powder-keg.md``."""

from arena.games.powder_keg.rules import POWDER_KEG as GAME

__all__ = ["GAME"]
