"""Reactor bot "strong": reads what each opponent can still hold from the plays of the round and
learns their style; near an overload it deals the unseen cards from those beliefs many times and
plays each sensible move out to the end of the round (``ReactorStrong`` in arena.games.reactor.policies).

    python bots/reactor_strong.py ENDPOINT
"""

import sys

from arena.bots.program import main

if __name__ == "__main__":
    sys.exit(main("reactor", "strong", "reactor-strong"))
