"""Helpers for the Powder Keg rule tests: positions set up directly, scripted chance, short accessors."""

from __future__ import annotations

from collections import Counter

from arena.games.base import GameConfig
from arena.games.chance import Chance
from arena.games.powder_keg.rules import CODES, KegState


class ScriptChance(Chance):
    """Chance with scripted outcomes; records every question it was asked as ``(what, items)``."""

    def __init__(self, picks: list[int] = (), shuffles: list[list[str]] = ()) -> None:  # type: ignore[assignment]
        self.picks = list(picks)
        self.shuffles = [list(s) for s in shuffles]
        self.calls: list[tuple[str, list[str]]] = []

    def pick(self, what: str, items: list[str]) -> int:
        self.calls.append((what, list(items)))
        return self.picks.pop(0) if self.picks else 0

    def shuffle(self, what: str, items: list[str]) -> list[str]:
        self.calls.append((what, list(items)))
        if not self.shuffles:
            return list(items)
        order = self.shuffles.pop(0)
        assert Counter(order) == Counter(items), "scripted shuffle is not an order of the cards"
        return order


def config(players: int, *variants: str, **kw) -> GameConfig:
    return GameConfig(players=players, variants=tuple(variants), **kw)


def position(
    players: int,
    hands: list[list[str]],
    pile: list[str],
    *,
    variants: tuple[str, ...] = (),
    chance: Chance | None = None,
    max_decisions: int | None = None,
    **kw,
) -> KegState:
    """A KegState set up directly: hands per seat, pile top first, discard bottom first, current, T, D, active."""
    cfg = GameConfig(players=players, variants=tuple(variants), max_decisions=max_decisions)
    return KegState.from_position(
        cfg, [list(h) for h in hands], list(pile), chance=chance or ScriptChance(), **kw
    )


def pile_of(state: KegState) -> list[str]:
    """The draw pile, top first."""
    return [CODES[t] for t in reversed(state.pile)]


def hand(state: KegState, seat: int) -> list[str]:
    return state.observation(seat)["hand"]


def move(state: KegState) -> tuple[int, str] | None:
    decision = state.to_move()
    return None if decision is None else (decision.seat, decision.kind)


def act(state: KegState, **action) -> None:
    """Apply a freshly built action dict (equal to, not identical with, the engine's constant)."""
    state.apply(dict(action))
    state.check_invariants()


def events(state: KegState, kind: str, seat: int | None = None, start: int = 0) -> list[dict]:
    """Events of one type as ``seat`` sees them (``None``: spectator)."""
    return [e for e in state.events(seat, start) if e["type"] == kind]


def kings_in_pile(state: KegState) -> int:
    return pile_of(state).count("K")
