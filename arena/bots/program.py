"""A built-in policy as a bot program: the glue every bundled heuristic and strong bot shares.

The policy is created afresh for each game from the referee's per-game seed (and each match
has its own instance, so games played at the same time never share one), so a game is
played the same way by a warm or a restarted process (what makes a resumed tournament equal
an uninterrupted one).  A policy with ``observe_events(events)`` is fed every event the seat
is shown, so its memory (its Peeks, where it put a King) is exact.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.policy import make_policy
from protocol.sdk import Context, run


class PolicyBot:
    """An SDK bot class around one of ``arena.games.policy``' built-in policies."""

    def __init__(self, game: str, policy: str) -> None:
        self.game, self.name = game, policy
        self.policy = make_policy(game, policy, random.Random(0))
        self.seen = 0

    def on_game_start(self, msg: dict[str, Any]) -> None:
        self.policy = make_policy(self.game, self.name, random.Random(msg.get("seed", msg["game_id"])))
        self.seen = 0

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]], ctx: Context) -> dict[str, Any]:
        observe = getattr(self.policy, "observe_events", None)
        if observe is not None:
            if len(ctx.history) < self.seen:  # a game we were not told about: start over
                self.seen = 0
            observe(ctx.history[self.seen:])
            self.seen = len(ctx.history)
        return self.policy.act(observation, legal)


def main(game: str, policy: str, name: str, concurrent: int = 16) -> int:
    """Run the policy as a bot (the endpoint comes from the command line); the exit status.

    It offers to play ``concurrent`` games at once, each match with its own instance."""

    class Bot(PolicyBot):
        def __init__(self) -> None:
            super().__init__(game, policy)

    return run(Bot, name=name, concurrent=concurrent)
