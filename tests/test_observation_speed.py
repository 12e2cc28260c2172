"""The fast ``observation()`` / ``events()`` of both engines show exactly what the plain versions showed.

``observation(seat)`` and ``events(seat, cursor)`` run at every decision the referee asks a bot about,
so they are written for speed (Reactor keeps the round's plays in their observation form; ``events``
calls ``redact`` only for events with a private part).  The reference functions below are the
straightforward versions they replaced, kept here so that what a seat sees (R22 and A.5 of
seeds/reactor.md; R22 and B.5 of seeds/powder-keg.md) can never change silently: same keys in the same
order, same values of the same types, same list order, and nothing of the engine's state shared with
the caller.
"""

from __future__ import annotations

import json
import random
from itertools import combinations
from typing import Any

import pytest

from arena.games.base import GameConfig, GameError, State, redact
from arena.games.chance import SeededChance
from arena.games.powder_keg.rules import CODES as KEG_CODES
from arena.games.powder_keg.rules import HOLDABLE, KD3, KD4, KD5, KIND_NAMES, POWDER_KEG, VARIANTS, KegState
from arena.games.reactor.rules import CODE_INDEX, REACTOR, ReactorState

# -- The reference versions ---------------------------------------------------------------------------


def ref_redact(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """R22: an event's private fields reach only the seats in its ``to`` list."""
    private = event.get("private")
    if private is None:
        return event
    public = {k: v for k, v in event.items() if k != "private"}
    if seat is not None and seat in private["to"]:
        public.update((k, v) for k, v in private.items() if k != "to")
    return public


def ref_events(state: State, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
    return [ref_redact(e, seat) for e in state.log[start:]]


def ref_round_plays(state: ReactorState) -> list[dict[str, Any]]:
    """A.5, RQ30: this round's plays in order, read back from the log (the plays since the last deal)."""
    plays: list[dict[str, Any]] = []
    for event in reversed(state.log):
        if event["type"] in ("round", "position"):
            break
        if event["type"] == "play":
            plays.append({f: v for f, v in event.items() if f != "type"})
    plays.reverse()
    return plays


def ref_reactor_observation(state: ReactorState, seat: int) -> dict[str, Any]:
    """A.5 as the table of seeds/reactor.md lists it."""
    revealed = state.revealed
    return {
        "game": "reactor",
        "seat": seat,
        "players": state.n,
        "tokens": list(state.tokens),
        "active": [t > 0 for t in state.tokens],
        "eliminated": list(state.eliminated),
        "round": state.round,
        "starter": state.starter,
        "current": None if state.over else state.cur,
        "meter": state.meter,
        "direction": state.direction,
        "pending": state.pending,
        "required": state.q,
        "bonus": state.b,
        "play": state.k,
        "hand": sorted(state.hands[seat], key=CODE_INDEX.__getitem__),
        "hand_sizes": [len(h) for h in state.hands],
        "pile": len(state.pile),
        "plays": ref_round_plays(state),
        "revealed": None
        if revealed is None
        else {"seat": revealed[0], "round": revealed[2], "hand": list(revealed[1])},
    }


def ref_keg_observation(state: KegState, seat: int) -> dict[str, Any]:
    """B.5 as the table of seeds/powder-keg.md lists it."""
    kind = state.kind
    chain = None
    if state.chain is not None:
        play = state.chain
        chain = {
            "author": play["seat"], "play": play["play"], "cards": list(play["cards"]),
            "target": play["target"], "name": play["name"], "vetoes": list(state.vetoes),
        }
    waiting = kind == KD4
    hand: list[str] = []
    for t in HOLDABLE:
        hand.extend([KEG_CODES[t]] * state.hands[seat][t])
    return {
        "game": "powder-keg",
        "seat": seat,
        "players": state.n,
        "variants": list(state.config.variants),
        "active": [s for s in range(state.n) if state.active[s]],
        "eliminated": list(state.eliminated),
        "forfeited": list(state.forfeits),
        "over": not kind,
        "current": state.cur,
        "T": state.T,
        "D": state.D,
        "starter": state.starter,
        "pile": len(state.pile),
        "kings": state.n_active - 1 - (1 if waiting else 0),
        "discard": list(state.discard),
        "hand_sizes": list(state.sizes),
        "hand": hand,
        "removed": dict(state.removed),
        "chain": chain,
        "favour": {"from": state.cur, "to": state.favour_target} if kind == KD3 else None,
        "insert": {"min": 0, "max": len(state.pile)} if waiting else None,
        "takeable": [KEG_CODES[t] for t in HOLDABLE if state.dcount[t]] if kind == KD5 else None,
        "decision": KIND_NAMES[kind] if kind and seat == state.seat else None,
    }


REFERENCE = {"reactor": ref_reactor_observation, "powder-keg": ref_keg_observation}

# -- Helpers --------------------------------------------------------------------------------------------


def assert_same(got: Any, want: Any, where: str = "") -> None:
    """Equal, and alike in everything JSON keeps: types (True is not 1, a tuple is not a list) and key order."""
    if repr(got) == repr(want):  # quick: for plain JSON data, repr shows all of that
        return
    _explain(got, want, where)
    raise AssertionError(f"{where}: {got!r} != {want!r}")  # pragma: no cover - a type repr hides


def _explain(got: Any, want: Any, where: str) -> None:
    """Fail at the first difference, naming where it is."""
    assert type(got) is type(want), f"{where}: {type(got).__name__} != {type(want).__name__}"
    if isinstance(want, dict):
        assert list(got) == list(want), f"{where}: keys {list(got)} != {list(want)}"
        for key in want:
            _explain(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _explain(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


def containers(value: Any) -> list[Any]:
    """Every list and dict inside ``value``, itself included."""
    found = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            found.append(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            found.append(v)
            stack.extend(v)
    return found


def scribble(value: Any) -> None:
    """Change every list and dict inside ``value`` (what a careless caller might do)."""
    for c in containers(value):
        if isinstance(c, dict):
            c["scribbled"] = True
        else:
            c.append("scribbled")


def check_decision(state: State, cursors: list[int], rng: random.Random) -> None:
    """At one decision: every seat's observation and new events, as the referee asks for them, equal the
    reference; a spectator's view too; the observation shares nothing and survives being scribbled on."""
    reference = REFERENCE[state.game]
    n = state.config.players
    for seat in range(n):
        obs = state.observation(seat)
        assert_same(obs, reference(state, seat), f"{state.game} observation({seat})")
        assert json.loads(json.dumps(obs)) == obs
        start = cursors[seat] if rng.random() < 0.8 else rng.randrange(max(0, len(state.log) - 40), len(state.log) + 1)
        assert_same(state.events(seat, start), ref_events(state, seat, start), f"events({seat}, {start})")
    seat = state.to_move().seat
    start = cursors[seat]
    assert_same(state.events(None, start), ref_events(state, None, start), f"events(None, {start})")
    if rng.random() < 0.02:
        assert_same(state.events(seat), ref_events(state, seat), "events(seat) from 0")
    # Two calls share no list or dict; scribbling on one changes neither the game nor the next call.
    first, second = state.observation(seat), state.observation(seat)
    shared = {id(c) for c in containers(first)} & {id(c) for c in containers(second)}
    assert not shared, f"{state.game}: two observations share {len(shared)} lists or dicts"
    scribble(first)
    state.check_invariants()
    assert_same(state.observation(seat), reference(state, seat), "after scribbling")
    events = state.events(seat, start)
    assert events is not state.log
    events.append({"type": "scribbled"})
    assert_same(state.events(seat, start), ref_events(state, seat, start), "events after appending")


def play(state: State, rng: random.Random, forfeit_rate: float = 0.0) -> int:
    """Play ``state`` out with random legal actions (and rare forfeits), checking every decision."""
    cursors = [0] * state.config.players
    decisions = 0
    while (decision := state.to_move()) is not None:
        check_decision(state, cursors, rng)
        cursors[decision.seat] = len(state.log)
        decisions += 1
        if forfeit_rate and rng.random() < forfeit_rate:
            state.forfeit(decision.seat, "test")
        else:
            state.apply(rng.choice(state.legal_actions()))
    reference = REFERENCE[state.game]
    for seat in range(state.config.players):
        assert_same(state.observation(seat), reference(state, seat), "after the end")
        assert_same(state.events(seat, cursors[seat]), ref_events(state, seat, cursors[seat]), "game_over events")
        assert_same(state.events(seat), ref_events(state, seat), "the whole log")
    assert_same(state.events(None), ref_events(state, None), "the whole log, public")
    return decisions


# -- redact ----------------------------------------------------------------------------------------------


def test_redact_of_game_events_matches_reference():
    """R22: private fields reach the listed seats only; a public field of the same name as ``to`` stays
    (Powder Keg's ``give``, B.5); events without a private part come back as they are."""
    events = [
        {"type": "give", "from": 0, "to": 2, "moved": True, "private": {"to": [0, 2], "card": "9"}},
        {"type": "x", "private": None},
        {"type": "x", "private": {"to": [], "a": 1}},
        {"private": {"to": [1], "a": 1, "b": [2]}, "type": "x", "seat": 1},
        {"type": "x", "a": 0, "private": {"to": [1], "a": 1}},
        {"type": "turn", "seat": 0, "T": 1, "D": False},
    ]
    for event in events:
        for seat in (None, 0, 1, 2, 3):
            got = redact(event, seat)
            assert_same(got, ref_redact(event, seat), f"redact({event}, {seat})")
            if event.get("private") is None:
                assert got is event
            else:
                assert got is not event and "private" in event  # the logged event is untouched


# -- Random games ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(REACTOR.min_players, REACTOR.max_players + 1))
def test_reactor_observation_and_events_match_reference(players):
    """R22, A.5, RQ19, RQ30: at every decision of random Reactor games (some with forfeits, some with a
    random starter), every seat sees exactly the reference observation and events."""
    decisions = 0
    for seed in range(12):
        rng = random.Random(f"reactor:{players}:{seed}")
        starter = None if seed % 3 == 0 else seed % players
        state = REACTOR.new_game(GameConfig(players=players, starter=starter), SeededChance(f"obs:{players}:{seed}"))
        decisions += play(state, rng, forfeit_rate=0.01 if seed % 2 else 0.0)
    assert decisions > 300


def test_reactor_capped_and_set_up_games_match_reference():
    """R22, A.5: also after the round cap ends a game mid-round, and in a position set up directly (whose
    plays start after the ``position`` event)."""
    for seed in range(6):
        rng = random.Random(seed)
        config = GameConfig(players=3 + seed % 3, max_rounds=2 + seed % 2)
        play(REACTOR.new_game(config, SeededChance(seed)), rng)
    state = ReactorState.from_position(
        GameConfig(players=3), [["S", "OC", "10"], ["9", "PB", "RP"], []], ["4", "5", "6", "7", "8"],
        meter=40, current=1, tokens=[2, 3, 0], eliminated=[2], round=4,
    )
    play(state, random.Random(1))
    with pytest.raises(GameError):
        state.observation(3)


@pytest.mark.parametrize("players", range(POWDER_KEG.min_players, POWDER_KEG.max_players + 1))
def test_keg_observation_and_events_match_reference(players):
    """R22, B.5, R13d: at every decision of random Powder Keg games, under every combination of variants
    (some games with forfeits or a random starter), every seat sees exactly the reference."""
    subsets = [c for r in range(len(VARIANTS) + 1) for c in combinations(VARIANTS, r)]
    decisions = 0
    for seed in range(2 * len(subsets)):
        variants = subsets[seed % len(subsets)]
        rng = random.Random(f"keg:{players}:{seed}")
        starter = None if seed % 3 == 0 else seed % players
        config = GameConfig(players=players, variants=variants, starter=starter)
        state = POWDER_KEG.new_game(config, SeededChance(f"obs:{players}:{seed}"))
        decisions += play(state, rng, forfeit_rate=0.02 if seed % 2 else 0.0)
    assert decisions > 300


def test_keg_capped_and_set_up_games_match_reference():
    """R22, B.5: also after the decision cap, and in a position set up directly."""
    for seed in range(4):
        config = GameConfig(players=2 + seed, max_decisions=30)
        play(POWDER_KEG.new_game(config, SeededChance(seed)), random.Random(seed))
    state = KegState.from_position(
        GameConfig(players=3, variants=("five-different",)),
        [["Q", "J", "9", "8", "7", "6", "5", "5", "5"], ["Q", "Bk", "4"], ["10", "3", "2", "2"]],
        ["K", "7", "K", "6"], discard=["2", "4"],
    )
    play(state, random.Random(2))
