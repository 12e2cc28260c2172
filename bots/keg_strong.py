"""Powder Keg bot: the card-counting Monte-Carlo ``strong`` policy of arena/policies/powder_keg.py.

    python bots/keg_strong.py ENDPOINT

Each game re-seeds the policy from the referee's per-game seed (so a game is played the same way by
a warm or a restarted process) and feeds it the events of every request (its Peeks, its insertion
indexes, who doused), which makes its memory exact.
"""

import random
import sys

from arena.policies.powder_keg import KegStrong
from protocol.sdk import run


class Bot:
    def __init__(self) -> None:
        self.policy = KegStrong(random.Random(0))
        self.seen = 0

    def on_game_start(self, msg):
        self.policy = KegStrong(random.Random(msg.get("seed", msg["game_id"])))
        self.seen = 0

    def act(self, observation, legal, ctx):
        if len(ctx.history) < self.seen:  # a game we were not told about: start over
            self.seen = 0
        self.policy.observe_events(ctx.history[self.seen:])
        self.seen = len(ctx.history)
        return self.policy.act(observation, legal)


if __name__ == "__main__":
    sys.exit(run(Bot(), name="keg-strong"))
