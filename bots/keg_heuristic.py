"""Powder Keg bot: the simple ``heuristic`` policy of arena/games/powder_keg/policies.py over the SDK: a
beginner's handful of rules on the current observation, no memory.

    python bots/keg_heuristic.py ENDPOINT

Each game re-seeds the policy from the referee's per-game seed (so a game is played the same way by
a warm or a restarted process).
"""

import sys

from arena.bots.program import main

if __name__ == "__main__":
    sys.exit(main("powder-keg", "heuristic", "keg-heuristic"))
