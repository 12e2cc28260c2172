"""Powder Keg (2-5 players, a standard deck, three variants): its rules (``rules``) and its
built-in policies (``policies``).  The game's name is ``powder-keg``; the rulebook in our words
is ``seeds/powder-keg.md``."""
