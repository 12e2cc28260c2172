"""Zoo: answers with an action that is never legal in the first two games of each match, then
plays like the seeded random bot (so a match where it is disqualified after two faults in a row
is told apart from one where it plays on)."""
import random
import sys

from protocol.sdk import run


class Flaky:
    def __init__(self):
        self.rng = random.Random()

    def on_game_start(self, msg):
        self.rng.seed(msg["seed"])

    def act(self, observation, legal, ctx):
        if ctx.game_index < 2:
            return {"type": "nonsense"}
        return self.rng.choice(legal)


sys.exit(run(Flaky, name="flaky"))
