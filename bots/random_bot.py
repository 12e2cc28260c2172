"""A random bot for any arena game: the smallest complete bot (see protocol/README.md)."""

import random
import sys

from protocol.sdk import run

rng = random.Random()


def act(observation, legal):
    return rng.choice(legal)


if __name__ == "__main__":
    sys.exit(run(act, name="random"))
