"""In-process players for self-play, tests and benchmarks.

A policy sees only what a bot would see: the seat's observation and the legal actions.  The
bundled bot programs in ``bots/`` wrap the same policies with the protocol SDK, so the
strengths measured in-process are the strengths of the bots.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable

from arena.games.base import Action, Observation


class Policy(ABC):
    """Chooses one of the legal actions.  ``needs_observation`` lets random play skip building it."""

    needs_observation = True

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    @abstractmethod
    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        """One of ``legal``, returned as given (``observation`` is ``None`` when not needed)."""


class RandomPolicy(Policy):
    """Uniform over the legal actions: the baseline every other bot must beat."""

    needs_observation = False

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]


def _factories(game: str) -> dict[str, Callable[[random.Random], Policy]]:
    from arena.games import REGISTRY

    entry = REGISTRY.get(game)
    return {"random": RandomPolicy, **(entry.policies() if entry is not None else {})}


def policy_names(game: str) -> list[str]:
    """The in-process policies available for ``game``."""
    return list(_factories(game))


def make_policy(game: str, name: str, rng: random.Random) -> Policy:
    """A fresh policy, or ``KeyError`` naming the policies there are."""
    table = _factories(game)
    if name not in table:
        raise KeyError(f"no built-in bot {name!r} for {game} (bots: {', '.join(table)})")
    return table[name](rng)
