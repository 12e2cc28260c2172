"""Zoo: thinks 300 ms of CPU time over its first decision of each match, then plays at once (a
bot that is fine under a 2 s limit and too slow under a 200 ms one; decisions are charged CPU
time, so it computes rather than sleeps)."""
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
            started = time.process_time()
            while time.process_time() - started < 0.3:
                pass
        return random.choice(legal)


sys.exit(run(SlowStart, name="slow-start"))
