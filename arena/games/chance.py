"""Chance sources: the only way a game touches randomness.

A live game draws from a seeded ``random.Random`` and writes down every outcome as realised
(a shuffle's full order, the index a pair steals).  A replay hands those outcomes back in order,
so a record re-creates a game without any random generator, and without trusting ours.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from typing import Any

from arena.games.errors import GameError


class ReplayError(GameError):
    """A record's chance events or decisions do not fit the game being replayed (a
    :class:`GameError`, so the CLI reports it in one line like any other)."""


class Chance(ABC):
    """Interface of a chance source; engines call only these two methods."""

    @abstractmethod
    def shuffle(self, what: str, items: list[str]) -> list[str]:
        """Return ``items`` in a uniformly random order (a new list)."""

    @abstractmethod
    def pick(self, what: str, items: list[str]) -> int:
        """Return a uniformly random index into ``items`` (which must not be empty)."""


class SeededChance(Chance):
    """Draws outcomes from a seeded generator and logs each one as realised."""

    __slots__ = ("rng", "log")

    def __init__(self, seed: int | str | random.Random) -> None:
        # str seeds are hashed with SHA-512 by random.Random, so they are stable across runs.
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        self.log: list[dict[str, Any]] = []

    def shuffle(self, what: str, items: list[str]) -> list[str]:
        order = list(items)
        self.rng.shuffle(order)
        self.log.append({"what": what, "order": order.copy()})
        return order

    def pick(self, what: str, items: list[str]) -> int:
        index = self.rng.randrange(len(items))
        self.log.append({"what": what, "index": index, "card": items[index]})
        return index


class ReplayChance(Chance):
    """Hands back recorded outcomes in order, checking each against what the game asks for."""

    __slots__ = ("events", "pos")

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.pos = 0

    def _next(self, what: str) -> dict[str, Any]:
        if self.pos >= len(self.events):
            raise ReplayError(f"the game asks for a chance event {what!r} but the record has no more")
        event = self.events[self.pos]
        if event.get("what") != what:
            raise ReplayError(
                f"chance event {self.pos} is {event.get('what')!r} but the game asks for {what!r}"
            )
        self.pos += 1
        return event

    def shuffle(self, what: str, items: list[str]) -> list[str]:
        event = self._next(what)
        order = list(event.get("order", ()))
        if Counter(order) != Counter(items):
            raise ReplayError(f"chance event {self.pos - 1} ({what}) is not an order of the cards in play")
        return order

    def pick(self, what: str, items: list[str]) -> int:
        event = self._next(what)
        index = event.get("index")
        if not isinstance(index, int) or not 0 <= index < len(items) or items[index] != event.get("card"):
            raise ReplayError(f"chance event {self.pos - 1} ({what}) does not fit the hand it picks from")
        return index

    @property
    def exhausted(self) -> bool:
        """True once every recorded event has been consumed."""
        return self.pos == len(self.events)
