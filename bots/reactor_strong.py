"""Reactor bot "strong": counts the cards it has seen, deals the unseen ones at random many times,
and plays each sensible move out to the end of the round (``ReactorStrong`` in arena.policies.reactor).

    python bots/reactor_strong.py ENDPOINT
"""

import sys

from arena.policies.program import main

if __name__ == "__main__":
    sys.exit(main("reactor", "strong", "reactor-strong"))
