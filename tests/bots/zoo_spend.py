"""Zoo: spends its whole game time on its first decision, answering as the clock runs out.

It then dies (a crash) if the referee ever asks it a decision with no time to make it: a
request with ``time_left_ms`` or ``deadline_ms`` below 1 is one the bot cannot answer in time.
"""
import sys
import time

from protocol.sdk import run


class Spend:
    def act(self, observation, legal, ctx):
        if ctx.time_left_ms < 1 or ctx.deadline_ms < 1:
            sys.exit(f"asked with time_left_ms={ctx.time_left_ms}, deadline_ms={ctx.deadline_ms}")
        if ctx.time_left_ms > 100:
            time.sleep(max(0.0, ctx.remaining_ms() - 0.2) / 1000)
        return legal[0]


sys.exit(run(Spend, name="spend"))
