"""Zoo: answers correctly, but only after thinking (using CPU time) past its decision's allowance
(timeout)."""
import sys
import time

from protocol.sdk import run


class Late:
    def act(self, observation, legal, ctx):
        while ctx.cpu_remaining_ms() > -300:  # 300 ms of CPU time too many
            pass
        return legal[0]


sys.exit(run(Late(), name="late"))
