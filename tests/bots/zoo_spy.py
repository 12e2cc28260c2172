"""Zoo: a well-behaved bot that reports on stderr whether every observation it got was its own."""
import sys

from protocol.sdk import run


class Spy:
    def __init__(self):
        self.seen = set()

    def act(self, observation, legal, ctx):
        self.seen.add(observation["seat"] == ctx.seat)
        return legal[0]

    def on_game_over(self, msg):
        print(f"zoo_spy: own observations only: {self.seen == {True}}", file=sys.stderr, flush=True)


sys.exit(run(Spy(), name="spy"))
