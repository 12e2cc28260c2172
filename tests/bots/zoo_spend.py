"""Zoo: spends its whole game time (CPU time) on its first decision, answering as it runs out.

It then dies (a crash) if the referee ever asks it a decision with no time to make it: a
request with ``time_left_ms`` or ``deadline_ms`` below 1 is one the bot cannot answer in time.
"""
import sys

from protocol.sdk import run


class Spend:
    def act(self, observation, legal, ctx):
        if ctx.time_left_ms < 1 or ctx.deadline_ms < 1:
            sys.exit(f"asked with time_left_ms={ctx.time_left_ms}, deadline_ms={ctx.deadline_ms}")
        if ctx.time_left_ms > 100:
            while ctx.cpu_remaining_ms() > 0.2:  # think until the last moment
                pass
        return legal[0]


sys.exit(run(Spend, name="spend"))
