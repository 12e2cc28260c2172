"""Zoo: thinks 300 ms over its first decision of each match, then plays at once (a bot that is
fine under a 2 s limit and too slow under a 200 ms one)."""
import random
import sys
import time

from protocol.sdk import run


class SlowStart:
    def __init__(self):
        self.first = True

    def act(self, observation, legal, ctx):
        if self.first:
            self.first = False
            time.sleep(0.3)
        return random.choice(legal)


sys.exit(run(SlowStart, name="slow-start"))
