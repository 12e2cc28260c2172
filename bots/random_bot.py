"""A random bot for any arena game: the smallest complete bot (see protocol/README.md).

It re-seeds from each game's ``seed``, so a game is played the same way by a warm or a restarted
bot (what lets an interrupted tournament resume to the very same results).  It offers to play 16
games at once: the SDK gives each match its own instance, so interleaved games never share a
generator.
"""

import random
import sys

from protocol.sdk import run


class RandomBot:
    def __init__(self):
        self.rng = random.Random()

    def on_game_start(self, msg):
        self.rng.seed(msg.get("seed"))

    def act(self, observation, legal, ctx):
        return self.rng.choice(legal)


if __name__ == "__main__":
    sys.exit(run(RandomBot, name="random", concurrent=16))
