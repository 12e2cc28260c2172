"""Powder Keg bot: the ``strong`` policy of arena/games/powder_keg/policies.py: counts cards, remembers
where Kings went back into the pile and learns how each opponent reinserts them.

    python bots/keg_strong.py ENDPOINT

Each game re-seeds the policy from the referee's per-game seed (so a game is played the same way by
a warm or a restarted process) and feeds it the events of every request (its Peeks, its insertion
indexes, who doused), which makes its memory exact.
"""

import sys

from arena.bots.program import main

if __name__ == "__main__":
    sys.exit(main("powder-keg", "strong", "keg-strong"))
