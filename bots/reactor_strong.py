"""Reactor bot "strong": counts the cards it has seen, deals the unseen ones at random many times,
and plays each sensible move out to the end of the round (``ReactorStrong`` in arena.policies.reactor).

    python bots/reactor_strong.py ENDPOINT
"""

import random
import sys

from arena.policies.reactor import ReactorStrong
from protocol.sdk import run


class Strong:
    def __init__(self):
        self.policy = ReactorStrong(random.Random(0))

    def on_game_start(self, msg):
        # The same game gets the same choices whether this process is fresh or has played before.
        self.policy.rng.seed(msg.get("seed", msg["game_id"]))

    def act(self, observation, legal, ctx):
        return self.policy.act(observation, legal)


if __name__ == "__main__":
    sys.exit(run(Strong, name="reactor-strong"))
