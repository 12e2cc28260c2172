"""Zoo: answers correctly, but only after the decision deadline (timeout)."""
import sys
import time

from protocol.sdk import run


def act(observation, legal, ctx=None):
    return legal[0]


class Late:
    def act(self, observation, legal, ctx):
        time.sleep(ctx.deadline_ms / 1000 + 0.3)
        return legal[0]


sys.exit(run(Late(), name="late"))
