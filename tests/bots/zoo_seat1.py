"""Zoo: fails only in seat 1 (arena check must show that seat's stderr)."""
import random, sys
from protocol.sdk import run

class Bot:
    def act(self, observation, legal, ctx):
        if ctx.seat == 1:
            raise RuntimeError("SEAT1 BUG")
        return random.choice(legal)

sys.exit(run(Bot, name="seat1"))
