"""Reactor bot "heuristic": one simple rule (``ReactorHeuristic`` in arena.games.reactor.policies).

Keeps its special cards for when no number card fits, plays any number that fits at random, and
never takes an Overclock's optional extra play.

    python bots/reactor_heuristic.py ENDPOINT
"""

import sys

from arena.bots.program import main

if __name__ == "__main__":
    sys.exit(main("reactor", "heuristic", "reactor-heuristic"))
