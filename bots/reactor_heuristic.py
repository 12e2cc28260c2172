"""Reactor bot "heuristic": one ply, no search (``ReactorHeuristic`` in arena.policies.reactor).

Pressures the next player (plays that leave them likely stuck), keeps lifelines and Sparks for when
nothing else fits, dumps big numbers while they still fit, and never makes a first Pass-the-Buck
play that leaves nothing for the second.

    python bots/reactor_heuristic.py ENDPOINT
"""

import random
import sys

from arena.policies.reactor import ReactorHeuristic
from protocol.sdk import run


class Heuristic:
    def __init__(self):
        self.policy = ReactorHeuristic(random.Random(0))

    def on_game_start(self, msg):
        # The heuristic draws no random numbers today; seeding keeps any future tie-break reproducible.
        self.policy.rng.seed(msg.get("seed", msg["game_id"]))

    def act(self, observation, legal, ctx):
        return self.policy.act(observation, legal)


if __name__ == "__main__":
    sys.exit(run(Heuristic, name="reactor-heuristic"))
