"""Reactor bot "heuristic": one ply, no search (``ReactorHeuristic`` in arena.policies.reactor).

Pressures the next player (plays that leave them likely stuck), keeps lifelines and Sparks for when
nothing else fits, dumps big numbers while they still fit, and never makes a first Pass-the-Buck
play that leaves nothing for the second.

    python bots/reactor_heuristic.py ENDPOINT
"""

import sys

from arena.policies.program import main

if __name__ == "__main__":
    sys.exit(main("reactor", "heuristic", "reactor-heuristic"))
