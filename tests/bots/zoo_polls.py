"""Zoo: plays at random and notes on stderr every Veto poll it gets (``polled GAME_ID``)."""
import random
import sys

from protocol.sdk import run


class Polls:
    def on_game_start(self, msg):
        self.rng = random.Random(msg["seed"])

    def act(self, observation, legal, ctx):
        if ctx.decision == "KD2":
            print(f"polled {ctx.game_id}", file=sys.stderr, flush=True)
        return self.rng.choice(legal)


sys.exit(run(Polls, name="polls"))
