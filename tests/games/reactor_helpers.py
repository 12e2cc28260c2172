"""Helpers for the Reactor rule tests: positions set up directly, scripted shuffles, readable actions."""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.games.base import Action, GameConfig
from arena.games.chance import Chance, ReplayChance
from arena.games.reactor.rules import DECK, ReactorState, sort_hand


def position(
    players: int,
    hands: list[list[str]],
    pile: list[str] = (),  # type: ignore[assignment]
    *,
    chance: Chance | None = None,
    max_rounds: int | None = None,
    max_decisions: int | None = None,
    **kw: Any,
) -> ReactorState:
    """A state in a given position (``pile`` top first; ``kw``: meter, current, required, bonus,
    play, direction, pending, tokens, eliminated, round, starter), run to its first decision."""
    config = GameConfig(players=players, max_rounds=max_rounds, max_decisions=max_decisions)
    return ReactorState.from_position(config, hands, list(pile), chance=chance, **kw)


def play(card: str, value: int | None = None) -> Action:
    """A fresh action dict, equal to (not the same object as) the engine's constant."""
    action: Action = {"type": "play", "card": card}
    if value is not None:
        action["value"] = value
    return action


STOP: Action = {"type": "stop"}


def label(action: Action) -> str:
    """``"10"``, ``"S=11"`` or ``"STOP"``: short names for asserting legal sets."""
    if action["type"] == "stop":
        return "STOP"
    if action["card"] == "S":
        return f"S={action['value']}"
    return action["card"]


def labels(state: ReactorState) -> list[str]:
    return [label(a) for a in state.legal_actions()]


def hand(state: ReactorState, seat: int) -> list[str]:
    return sort_hand(state.hands[seat])


def pile(state: ReactorState) -> list[str]:
    """The draw pile, top first."""
    return state.pile[::-1]


def order_with(prefix: list[str]) -> list[str]:
    """A full 60-card deck order (top first) that starts with ``prefix``; the rest in deck order."""
    rest = Counter(DECK)
    rest.subtract(prefix)
    assert min(rest.values()) >= 0, "prefix uses more copies than the deck has"
    order = list(prefix)
    for code in DECK:
        if rest[code] > 0:
            rest[code] -= 1
            order.append(code)
    return order


def deck_chance(*orders: list[str]) -> ReplayChance:
    """A chance source that deals the given orders, one per round, and nothing else."""
    return ReplayChance([{"what": "deck", "order": list(o)} for o in orders])


def last(state: ReactorState, kind: str) -> dict[str, Any]:
    """The latest logged event of a type."""
    return next(e for e in reversed(state.log) if e["type"] == kind)


def of_type(state: ReactorState, kind: str) -> list[dict[str, Any]]:
    return [e for e in state.log if e["type"] == kind]
