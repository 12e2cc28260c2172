"""A random bot that writes, at each game start, the CPUs it may run on (tests/test_tournament.py)."""

import os
import random
import sys

from protocol.sdk import run


class Reporter:
    rng = random.Random(0)

    def on_game_start(self, msg):
        sys.stderr.write(f"cpus={sorted(os.sched_getaffinity(0))}\n")
        sys.stderr.flush()

    def act(self, observation, legal, ctx):
        return self.rng.choice(legal)


sys.exit(run(Reporter(), name="reporter"))
