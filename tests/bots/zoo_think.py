"""Zoo: thinks (uses CPU time) for a while at each of its first decisions, then plays quickly.

Run as ``zoo_think.py ENDPOINT MS COUNT``: at each of its first COUNT decisions of every game it
spins until its process has used MS milliseconds of CPU time since the request came, then plays
the first legal action.  On a loaded CPU that takes several times MS of wall-clock time.
"""
import sys
import time

from protocol.sdk import run

think_ms, count = float(sys.argv[2]), int(sys.argv[3])


class Think:
    def __init__(self):
        self.asked = {}

    def act(self, observation, legal, ctx):
        done = self.asked[ctx.game_id] = self.asked.get(ctx.game_id, 0) + 1
        if done <= count:
            start = time.process_time()
            while (time.process_time() - start) * 1000 < think_ms:
                pass
        return legal[0]


sys.exit(run(Think, name="think"))
