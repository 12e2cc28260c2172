"""Reactor rule tests: every rule (R1-R22), ruling (RQ1-RQ31), decision point (RD1, RD2) and random event
(RE1, RE2) of seeds/reactor.md (the chance calls: seeds/reactor-engine.md), and the rulings' scenarios
(RT1, RT2, RT3, RT4, RT7, RT9, RT12)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from reactor_helpers import STOP, deck_chance, hand, label, labels, last, of_type, order_with, pile, play, position

from arena.games.base import ConfigError, Decision, GameConfig, GameError, GameResult, IllegalAction
from arena.games.chance import ReplayChance, ReplayError, SeededChance
from arena.games.match import Match
from arena.games.reactor.rules import (
    ACTIONS,
    CODES,
    COUNTS,
    DECK,
    PLAY_ACTIONS,
    REACTOR,
    ReactorState,
)
from arena.games.record import make_record, replay

SPECIALS = ["VS", "FR", "RL", "PB", "RP", "CB"]
# Independent of the engine's tables: the largest meter at which each play is legal (A.1).
LIMIT = {"S=1": 98, "S=11": 88, "4": 95, "5": 94, "6": 93, "7": 92, "OC": 92, "8": 91, "9": 90, "10": 89}


def random_game(players: int, seed: int, forfeit_rate: float = 0.0, starter: int | None = 0) -> ReactorState:
    """A random playout, checking the engine's invariants at every step."""
    rng = random.Random(seed)
    state = ReactorState.new(GameConfig(players=players, starter=starter), SeededChance(seed))
    while (decision := state.to_move()) is not None:
        state.check_invariants()
        if rng.random() < forfeit_rate:
            state.forfeit(decision.seat, "test")
            continue
        state.apply(rng.choice(state.legal_actions()))
    state.check_invariants()
    return state


# -- Scenarios ------------------------------------------------------------------------------------


def test_rt1_turn_in_action():
    """RT1 (R8, R9, R12, R16, R17, R19, RQ5, RQ18, RQ30): the rulebook's worked example, step by step."""
    next_order = order_with(["S", "4", "5", "6", "7", "8", "9", "10", "VS", "FR", "RL", "PB"])
    s = position(
        4,
        [["8", "5", "6"], ["9", "10", "RL"], ["VS", "7", "4"], ["OC", "S", "10"]],
        ["9", "4", "8", "5", "6", "7", "7"],
        meter=81,
        current=0,
        chance=deck_chance(next_order),
    )
    # 1. Hazel.
    assert s.to_move() == Decision(0, "RD1")
    assert labels(s) == ["5", "6", "8"]
    s.apply(play("8"))
    assert s.meter == 89 and hand(s, 0) == ["5", "6", "9"]
    # 2. Pip: 9 and 10 are legal at 89 (RQ5); Redline is his choice.
    assert s.to_move() == Decision(1, "RD1")
    assert labels(s) == ["9", "10", "RL"]
    s.apply(play("RL"))
    assert s.meter == 99 and hand(s, 1) == ["4", "9", "10"]
    # 3. Bram.
    assert s.to_move() == Decision(2, "RD1")
    assert labels(s) == ["VS"]
    s.apply(play("VS"))
    assert s.meter == 89 and hand(s, 2) == ["4", "7", "8"]
    # 4a. Cinder's Overclock: no draw yet, an optional play follows.
    assert s.to_move() == Decision(3, "RD1")
    assert labels(s) == ["S=1", "OC", "10"]
    s.apply(play("OC"))
    assert s.meter == 96 and hand(s, 3) == ["S", "10"] and pile(s) == ["5", "6", "7", "7"]
    assert s.to_move() == Decision(3, "RD2")
    assert labels(s) == ["S=1", "STOP"]
    obs = s.observation(3)
    assert obs == {
        "game": "reactor", "seat": 3, "players": 4, "tokens": [3, 3, 3, 3],
        "active": [True, True, True, True], "eliminated": [], "round": 1, "starter": 0,
        "current": 3, "meter": 96, "direction": 1, "pending": False,
        "required": 1, "bonus": 1, "play": 2, "hand": ["S", "10"], "hand_sizes": [3, 3, 3, 2], "pile": 4,
        "plays": [{"seat": 0, "card": "8", "meter": 89}, {"seat": 1, "card": "RL", "meter": 99},
                  {"seat": 2, "card": "VS", "meter": 89}, {"seat": 3, "card": "OC", "meter": 96}],
        "revealed": None,
    }
    # 4b. The extra Spark, counted as 1; then Cinder draws 2.
    # The overload of step 5 follows at once, so Cinder's hand is checked through the events.
    start = len(s.log)
    s.apply(play("S", 1))
    assert s.log[start:start + 2] == [
        {"type": "play", "seat": 3, "card": "S", "value": 1, "meter": 97},
        {"type": "draw", "seat": 3, "count": 2, "private": {"to": [3], "cards": ["5", "6"]}},
    ]
    # 5. Hazel, at 97 with [5, 6, 9], overloads: nothing is asked of her.
    meters = [e["meter"] for e in s.log if e["type"] == "play"]
    assert meters == [89, 99, 89, 96, 97]
    assert last(s, "overload") == {"type": "overload", "seat": 0, "meter": 97, "hand": ["5", "6", "9"]}
    assert last(s, "token") == {"type": "token", "seat": 0, "tokens": 2}
    # Round 2: reshuffled, meter 0, direction LEFT, Hazel starts, 3 cards each, 48 in the pile.
    assert s.tokens == [2, 3, 3, 3]
    assert (s.round, s.starter, s.meter, s.direction) == (2, 0, 0, 1)
    assert s.to_move() == Decision(0, "RD1")
    assert [len(h) for h in s.hands] == [3, 3, 3, 3] and len(s.pile) == 48
    assert pile(s) == next_order[12:]
    assert s.plays == []
    assert s.observation(2)["revealed"] == {"seat": 0, "round": 1, "hand": ["5", "6", "9"]}


def test_rt2_spark_values():
    """RT2 (RQ1, RQ2, R19): a Spark is 1 or 11 at each play; at 99 it cannot be played at all."""
    s = position(3, [["S", "10", "9"], ["S", "4", "5"], ["CB", "CB", "CB"]], ["7", "7"], meter=88,
                 chance=deck_chance(order_with([])))
    assert labels(s) == ["S=1", "S=11", "9", "10"]
    s.apply(play("S", 11))
    assert of_type(s, "play") == [{"type": "play", "seat": 0, "card": "S", "value": 11, "meter": 99}]
    # B at 99 with [S, 4, 5]: nothing is legal, B overloads and starts the next round.
    overload = of_type(s, "overload")
    assert overload == [{"type": "overload", "seat": 1, "meter": 99, "hand": ["S", "4", "5"]}]
    assert s.tokens == [3, 2, 3] and s.round == 2 and s.starter == 1
    assert s.to_move() == Decision(1, "RD1")
    # Separate case: at 89 the Spark may only count 1.
    s = position(3, [["S", "10", "9"], ["4"], ["5"]], ["7"], meter=89)
    assert labels(s) == ["S=1", "9", "10"]
    with pytest.raises(IllegalAction):
        s.apply(play("S", 11))


@pytest.mark.parametrize(("meter", "after"), [(7, 0), (0, 0), (10, 0), (99, 89), (55, 45)])
def test_rt3_vent_steam_floor(meter, after):
    """RT3 (RQ3, R9): Vent Steam is max(0, m-10) and legal at every meter, including 0."""
    s = position(2, [["VS", "10", "10"], ["CB", "CB", "CB"]], ["4", "4"], meter=meter)
    assert "VS" in labels(s)
    s.apply(play("VS"))
    assert s.meter == after


@pytest.mark.parametrize(("meter", "cards", "offered", "after"), [
    (99, ["FR", "10", "10"], ["FR"], 0),
    (99, ["RL", "9", "9"], ["RL"], 99),
    (95, ["CB", "10", "10"], ["CB"], 95),
    (99, ["VS", "10", "10"], ["VS"], 89),
])
def test_rt3_always_legal_specials(meter, cards, offered, after):
    """RT3 (RQ4, RQ2, R9): specials are legal at any meter; Redline at 99 leaves 99."""
    s = position(2, [cards, ["RP", "RP", "RP"]], ["5", "5"], meter=meter)
    assert labels(s) == offered
    s.apply(play(offered[0]))
    assert s.meter == after


def test_rt3_specials_never_overload():
    """RT3 (RQ4, R9, R17): a hand holding any special card is never overloaded, at any meter."""
    for special in SPECIALS:
        for meter in range(100):
            s = position(2, [[special, "10", "10"], ["4", "4", "4"]], ["5"], meter=meter)
            assert s.to_move() == Decision(0, "RD1")
            assert special in labels(s)
            assert not of_type(s, "overload")


def test_rt4_pass_the_buck_and_draw_timing():
    """RT4 (R6, R7, R12, R14, RQ6, RQ15): two required plays, one draw-up at the end, no STOP."""
    s = position(3, [["PB", "10", "10"], ["5", "6", "10"], ["8", "8", "8"]], ["4", "7", "9", "8", "CB"],
                 meter=50)
    s.apply(play("PB"))
    assert s.meter == 50 and hand(s, 0) == ["4", "10", "10"]
    # B owes two required plays.
    assert s.to_move() == Decision(1, "RD1")
    obs = s.observation(1)
    assert (obs["required"], obs["bonus"], obs["play"], obs["pending"]) == (2, 0, 1, False)
    assert labels(s) == ["5", "6", "10"]
    s.apply(play("5"))
    assert s.meter == 55
    # No draw between the two plays, and STOP is not offered.
    assert hand(s, 1) == ["6", "10"] and pile(s) == ["7", "9", "8", "CB"]
    assert s.to_move() == Decision(1, "RD1") and "STOP" not in labels(s)
    assert s.observation(0)["play"] == 2
    with pytest.raises(IllegalAction):
        s.apply(STOP)
    s.apply(play("10"))
    assert s.meter == 65 and hand(s, 1) == ["6", "7", "9"]
    # C: a normal turn.
    assert s.to_move() == Decision(2, "RD1") and s.observation(2)["required"] == 1
    s.apply(play("8"))
    assert s.meter == 73 and hand(s, 2) == ["8", "8", "8"] and pile(s) == ["CB"]


def test_rt7a_overclock_chain():
    """RT7a (R16, RQ14, R7, RD2, Clarification 2): OC, OC, 5; the turn ends by itself, then 3 cards."""
    s = position(2, [["OC", "OC", "5"], ["CB", "CB", "CB"]], ["4", "4", "4", "6"], meter=70)
    s.apply(play("OC"))
    assert s.meter == 77 and s.to_move() == Decision(0, "RD2")
    assert labels(s) == ["5", "OC", "STOP"]
    s.apply(play("OC"))
    assert s.meter == 84 and (s.q, s.b, s.k) == (1, 2, 3)
    assert labels(s) == ["5", "STOP"]
    s.apply(play("5"))
    assert s.meter == 89
    # Nobody is asked to STOP after the last allowed play: the turn is over and A drew 3.
    assert s.to_move() == Decision(1, "RD1")
    assert hand(s, 0) == ["4", "4", "4"] and pile(s) == ["6"]
    assert not of_type(s, "stop")


def test_rt7b_overclock_stop():
    """RT7b (RQ14, R11, RD2): after an Overclock the player may STOP; then A draws 1."""
    s = position(2, [["OC", "OC", "5"], ["CB", "CB", "CB"]], ["4", "4", "4"], meter=70)
    s.apply(play("OC"))
    s.apply(STOP)
    assert last(s, "stop") == {"type": "stop", "seat": 0}
    assert s.meter == 77 and hand(s, 0) == ["4", "5", "OC"]
    assert s.to_move() == Decision(1, "RD1")


def test_rt7c_overclock_without_room():
    """RT7c (RQ14, R11): the extra play has nothing legal: skipped silently, no overload, A draws 1."""
    s = position(2, [["OC", "9", "10"], ["CB", "CB", "CB"]], ["4", "4"], meter=90)
    assert labels(s) == ["OC", "9"]
    s.apply(play("OC"))
    assert s.meter == 97
    assert s.to_move() == Decision(1, "RD1")
    assert hand(s, 0) == ["4", "9", "10"] and s.tokens == [3, 3]
    assert not of_type(s, "overload")


def test_rt7d_overclock_illegal_means_overload():
    """RT7d (RQ14, R17): at 93 not even the Overclock fits, so A overloads."""
    s = position(2, [["OC", "9", "10"], ["CB", "CB", "CB"]], ["4"], meter=93, chance=deck_chance(DECK))
    assert last(s, "overload")["hand"] == ["OC", "9", "10"]
    assert s.tokens == [2, 3]


def test_rt9a_reverse_with_eliminated_player():
    """RT9a (R13, R15, RQ17): after a Reverse the next qualifying seat in the new direction plays."""
    s = position(4, [["4", "6", "7"], ["RP", "5", "6"], [], ["4", "5", "8"]], ["9", "9", "9", "8"],
                 tokens=[3, 3, 0, 3], meter=30, current=1)
    s.apply(play("RP"))
    assert s.direction == -1 and s.meter == 30
    assert s.to_move() == Decision(0, "RD1")
    s.apply(play("4"))
    assert s.meter == 34 and s.to_move() == Decision(3, "RD1")
    s.apply(play("5"))
    # C (seat 2) is eliminated and skipped.
    assert s.to_move() == Decision(1, "RD1")


def test_rt9b_reverse_with_two_players():
    """RT9b (RQ16, R15): with two players the flag flips but the other player still plays next."""
    s = position(2, [["RP", "5", "6"], ["4", "7", "8"]], ["9", "9", "8"], meter=10)
    s.apply(play("RP"))
    assert s.direction == -1 and s.to_move() == Decision(1, "RD1")
    s.apply(play("4"))
    assert s.to_move() == Decision(0, "RD1")


def test_rt12_wash():
    """RT12 (R18, R19, RQ22, RQ23, RQ18, RE1): the last cards are played; a wash, C starts the next round."""
    order = order_with(["10", "9", "8", "7", "6", "5", "4", "S", "CB"])
    chance = deck_chance(order)
    s = position(3, [["4"], ["5"], []], [], meter=20, current=0, starter=1, chance=chance)
    assert labels(s) == ["4"]
    s.apply(play("4"))
    assert s.meter == 24 and hand(s, 0) == []
    assert s.to_move() == Decision(1, "RD1")
    s.apply(play("5"))
    assert of_type(s, "wash") == [{"type": "wash", "round": 1}]
    assert s.tokens == [3, 3, 3] and not of_type(s, "overload")
    assert (s.round, s.starter, s.meter, s.direction) == (2, 2, 0, 1)
    assert last(s, "round") == {"type": "round", "round": 2, "starter": 2, "pile": 51}
    # Fresh hands, dealt from C leftwards (RE1 consumed the one recorded shuffle).
    assert hand(s, 2) == ["4", "7", "10"] and hand(s, 0) == ["S", "6", "9"] and hand(s, 1) == ["5", "8", "CB"]
    assert pile(s) == order[9:]
    assert s.to_move() == Decision(2, "RD1")
    assert chance.exhausted


def test_rq23_wash_starter_ignores_direction():
    """RQ23, R19, RQ18: after a wash the starter is left of the washed round's starter, whatever the
    direction was; the new round runs LEFT again."""
    s = position(3, [["4"], [], ["5"]], [], meter=20, current=0, starter=1, direction=-1,
                 chance=deck_chance(DECK))
    s.apply(play("4"))
    assert s.to_move() == Decision(2, "RD1")  # RIGHT of seat 0
    s.apply(play("5"))
    assert of_type(s, "wash") and (s.starter, s.direction) == (2, 1)
    assert s.to_move() == Decision(2, "RD1")


def test_r19_rq23_wash_after_the_starter_left():
    """R19, RQ23, RQ18, R18: the washed round's starter is out, so the first ACTIVE seat to its left
    starts the next round (not the seat right of it, not the last player), and that round runs LEFT."""
    s = position(5, [["4"], ["5", "6"], [], [], ["8"]], [], tokens=[3, 3, 0, 3, 3], meter=0, current=1,
                 starter=1, direction=-1, chance=deck_chance(DECK))
    s.forfeit(1, "timeout")  # the round's starter leaves mid-round
    assert s.to_move() == Decision(0, "RD1")  # RIGHT of seat 1
    s.apply(play("4"))
    assert s.to_move() == Decision(4, "RD1")
    s.apply(play("8"))
    assert of_type(s, "wash") == [{"type": "wash", "round": 1}]
    assert s.tokens == [3, 0, 0, 3, 3] and s.eliminated == [2, 1]
    # Left of seat 1: seat 2 is out, so seat 3 starts (it held no card in the washed round).
    assert last(s, "round") == {"type": "round", "round": 2, "starter": 3, "pile": 51}
    assert (s.starter, s.direction, s.meter) == (3, 1, 0)
    assert s.to_move() == Decision(3, "RD1") and [len(h) for h in s.hands] == [3, 0, 0, 3, 3]
    s.apply(play("4"))
    assert s.to_move() == Decision(4, "RD1")  # LEFT of seat 3; RIGHT would have been seat 0


# -- Setup and structure ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 1, 7, 8])
def test_r1_refuses_other_player_counts(players):
    """R1: only 2 to 6 players."""
    with pytest.raises(ConfigError):
        ReactorState.new(GameConfig(players=players), SeededChance(1))
    with pytest.raises(ConfigError):
        REACTOR.new_game(GameConfig(players=players), SeededChance(1))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_r1_r3_r5_setup_for_each_count(players):
    """R1, R3, R5, RQ29: 3 tokens and 3 cards each, 60 - 3n in the pile, meter 0, LEFT, starter plays."""
    s = REACTOR.new_game(GameConfig(players=players), SeededChance(7))
    assert s.tokens == [3] * players and sum(s.tokens) <= 18
    assert [len(h) for h in s.hands] == [3] * players
    assert len(s.pile) == 60 - 3 * players >= 42
    assert (s.meter, s.direction, s.pending, s.round, s.starter) == (0, 1, False, 1, 0)
    assert s.to_move() == Decision(0, "RD1")
    obs = s.observation(0)
    assert (obs["required"], obs["bonus"], obs["play"]) == (1, 0, 1)


def test_r2_deck_composition():
    """R2, A.1: 60 cards, 41 number cards and 19 specials; every round shuffles all of them (RE1)."""
    assert len(DECK) == 60 and Counter(DECK) == COUNTS
    assert sum(COUNTS[c] for c in SPECIALS) == 19
    assert list(COUNTS) == list(CODES)
    chance = SeededChance(3)
    ReactorState.new(GameConfig(players=4), chance)
    assert [e["what"] for e in chance.log] == ["deck"]
    assert Counter(chance.log[0]["order"]) == COUNTS


def test_r5_deal_one_at_a_time_from_the_starter():
    """R5, RE1, R4: cards go one at a time from the starter leftwards; the rest is the pile, top first."""
    order = order_with(["S", "4", "5", "6", "7", "OC", "8", "9", "10", "VS"])
    s = ReactorState.new(GameConfig(players=3, starter=1), deck_chance(order))
    assert hand(s, 1) == ["S", "6", "8"] and hand(s, 2) == ["4", "7", "9"] and hand(s, 0) == ["5", "OC", "10"]
    assert pile(s) == order[9:] and pile(s)[0] == "VS"
    assert s.to_move() == Decision(1, "RD1")
    # The deal is logged as a public round event and one private hand event per seat, in dealing order.
    assert s.log[0] == {"type": "round", "round": 1, "starter": 1, "pile": 51}
    assert s.log[1:] == [
        {"type": "hand", "seat": 1, "count": 3, "private": {"to": [1], "cards": ["S", "6", "8"]}},
        {"type": "hand", "seat": 2, "count": 3, "private": {"to": [2], "cards": ["4", "7", "9"]}},
        {"type": "hand", "seat": 0, "count": 3, "private": {"to": [0], "cards": ["5", "OC", "10"]}},
    ]


def test_r5_deal_skips_eliminated_seats():
    """R5, R19, RE1: an overload ends the round; the deal goes from its starter leftwards over active seats."""
    order = order_with(["S", "4", "5", "6", "7", "OC", "8", "9", "10"])
    s = position(4, [["4", "5", "6"], ["CB", "CB", "CB"], [], ["10", "10", "9"]], ["8"],
                 tokens=[3, 3, 0, 3], meter=95, current=3, chance=deck_chance(order))
    assert s.tokens == [3, 3, 0, 2] and s.starter == 3
    # Deal order: 3, 0, 1 (seat 2 is out).
    assert hand(s, 3) == ["S", "6", "8"] and hand(s, 0) == ["4", "7", "9"] and hand(s, 1) == ["5", "OC", "10"]
    assert hand(s, 2) == [] and len(s.pile) == 51


def test_r4_rq31_re2_first_starter():
    """R4, RQ31, RE2: the round-1 starter is configured (default seat 0), or drawn and recorded."""
    assert ReactorState.new(GameConfig(players=3), SeededChance(1)).starter == 0
    assert ReactorState.new(GameConfig(players=3, starter=2), SeededChance(1)).to_move() == Decision(2, "RD1")
    chance = SeededChance(11)
    s = ReactorState.new(GameConfig(players=5, starter=None), chance)
    pick = chance.log[0]
    assert pick["what"] == "starter" and pick["card"] == str(pick["index"])
    assert s.starter == pick["index"] and s.to_move().seat == pick["index"]
    assert [e["what"] for e in chance.log] == ["starter", "deck"]
    # A recorded draw is honoured on replay.
    replayed = ReactorState.new(GameConfig(players=5, starter=None),
                                ReplayChance([{"what": "starter", "index": 4, "card": "4"}, {"what": "deck", "order": DECK}]))
    assert replayed.starter == 4 and replayed.to_move() == Decision(4, "RD1")


def test_r7_quotas_in_the_observation():
    """R7, RQ13, RD1, RD2: Q, B and k are public and follow the plays of the turn."""
    s = position(3, [["OC", "5", "6"], ["CB", "CB", "CB"], ["4", "4", "4"]], ["9", "9"], meter=10,
                 required=2)
    seen = []
    for action in (play("OC"), play("5")):
        obs = s.observation(2)
        seen.append((obs["required"], obs["bonus"], obs["play"], s.to_move().kind))
        s.apply(action)
    obs = s.observation(1)
    seen.append((obs["required"], obs["bonus"], obs["play"], s.to_move().kind))
    assert seen == [(2, 0, 1, "RD1"), (2, 1, 2, "RD1"), (2, 1, 3, "RD2")]
    # RQ13: the third, optional play is there under Pass the Buck plus Overclock.
    assert labels(s) == ["6", "STOP"]
    s.apply(play("6"))
    assert s.meter == 28 and hand(s, 0) == ["9", "9"] and s.to_move() == Decision(1, "RD1")


def test_r8_play_event_and_rq30_history():
    """R8, RQ30, R22: each play is published with its resulting meter; the round's history is public."""
    s = position(3, [["S", "4", "5"], ["S", "6", "7"], ["FR", "8", "9"]], ["10", "10", "10"], meter=0)
    s.apply(play("S", 11))
    s.apply(play("S", 1))
    s.apply(play("FR"))
    history = [{"seat": 0, "card": "S", "value": 11, "meter": 11}, {"seat": 1, "card": "S", "value": 1, "meter": 12},
               {"seat": 2, "card": "FR", "meter": 0}]
    for seat in range(3):
        assert s.observation(seat)["plays"] == history
    assert [e for e in s.log if e["type"] == "play"] == [dict(type="play", **h) for h in history]


def test_r9_rq2_ceiling_is_99():
    """R9, RQ2: a play that reaches exactly 99 is legal; 100 is not."""
    s = position(2, [["10", "9", "4"], ["CB", "CB", "CB"]], ["5"], meter=89)
    assert labels(s) == ["4", "9", "10"]
    s.apply(play("10"))
    assert s.meter == 99
    s = position(2, [["10", "9", "4"], ["CB", "CB", "CB"]], ["5"], meter=90)
    assert labels(s) == ["4", "9"]
    for action in (play("10"), play("5"), play("OC"), play("X"), {"type": "pass"}, STOP):
        with pytest.raises(IllegalAction):
            s.apply(action)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_rd1_rd2_legal_sets_match_a1(players):
    """RD1, RD2, R9, RQ1, RQ4, RQ20: at every decision the offer is exactly the A.1 arithmetic, in
    fixed order; STOP only at RD2; an overload only when nothing in hand fits."""
    order = {label(a): i for i, a in enumerate(ACTIONS)}
    for seed in range(15):
        rng = random.Random(seed)
        s = ReactorState.new(GameConfig(players=players), SeededChance(seed))
        while (decision := s.to_move()) is not None:
            held = set(s.hands[decision.seat])
            want = [f"S={v}" for v in (1, 11) if "S" in held and s.meter <= LIMIT[f"S={v}"]]
            want += [c for c in held if c != "S" and (c in SPECIALS or s.meter <= LIMIT[c])]
            if decision.kind == "RD2":
                want.append("STOP")
            got = labels(s)
            assert got == sorted(want, key=order.__getitem__)
            assert decision.kind == ("RD1" if s.k <= s.q else "RD2")
            before = len(s.log)
            s.apply(rng.choice(s.legal_actions()))
            for event in s.log[before:]:
                if event["type"] == "overload":
                    fits = [c for c in event["hand"] if c in SPECIALS or event["meter"] <= LIMIT.get(c, LIMIT["S=1"])]
                    assert fits == [], "overloaded while holding a legal play"


def test_r10_rq20_no_pass_and_doomed_play_allowed():
    """R10, RQ8, RQ20: a required play must be made (no pass, no STOP); a legal play that dooms the
    player is accepted and the overload follows when the next required play is due."""
    s = position(3, [["CB", "CB", "CB"], ["10", "9", "8"], ["4", "4", "4"]], ["5", "5"], meter=85,
                 current=1, required=2, chance=deck_chance(DECK))
    assert labels(s) == ["8", "9", "10"]
    with pytest.raises(IllegalAction):
        s.apply(STOP)
    s.apply(play("10"))
    # 95: nothing is left for the second required play.
    assert last(s, "overload") == {"type": "overload", "seat": 1, "meter": 95, "hand": ["8", "9"]}
    assert [e["card"] for e in of_type(s, "play")] == ["10"]
    assert s.tokens == [3, 2, 3] and s.starter == 1 and s.round == 2


def test_r11_optional_play_skipped_when_hand_empty():
    """R11, R16, RQ14: an Overclock as the last card leaves an optional play with an empty hand: skipped."""
    s = position(2, [["OC"], ["4"]], [], meter=0, chance=deck_chance(DECK))
    s.apply(play("OC"))
    assert s.to_move() == Decision(1, "RD1") and s.meter == 7
    assert not of_type(s, "lapse") and not of_type(s, "overload")


def test_r12_rq28_only_the_current_player_draws_at_turn_end():
    """R12, RQ28, RE1: draws happen only after the drawer's own plays; every round is a fresh shuffle."""
    for players in (2, 3, 5):
        for seed in range(10):
            s = random_game(players, seed)
            last_seat = None
            for event in s.log:
                if event["type"] in ("play", "stop"):
                    last_seat = event["seat"]
                elif event["type"] == "draw":
                    assert event["seat"] == last_seat
                    assert 1 <= event["count"] == len(event["private"]["cards"]) <= 3
                elif event["type"] == "round":
                    last_seat = None
            rounds = of_type(s, "round")
            assert [e["round"] for e in rounds] == list(range(1, s.round + 1))
            assert [e["what"] for e in s.chance.log] == ["deck"] * s.round


def test_r13_turn_comes_back_to_the_only_holder():
    """R13, R20, RQ21: with an empty pile, empty hands are skipped; the only holder plays again."""
    s = position(3, [["4", "5"], [], []], [], meter=0, chance=deck_chance(DECK))
    s.apply(play("4"))
    assert s.to_move() == Decision(0, "RD1") and (s.q, s.k) == (1, 1)
    assert not of_type(s, "draw")
    s.apply(play("5"))
    assert of_type(s, "wash") and s.starter == 1


def test_r20_rq27_short_pile():
    """R20, RQ27, R12: a draw-up from a short pile takes what is left; later draw-ups give nothing."""
    s = position(3, [["4", "5", "6"], ["7", "8", "9"], ["4", "5", "6"]], ["10"], meter=0)
    s.apply(play("4"))
    assert hand(s, 0) == ["5", "6", "10"] and pile(s) == []
    assert last(s, "draw") == {"type": "draw", "seat": 0, "count": 1, "private": {"to": [0], "cards": ["10"]}}
    s.apply(play("7"))
    assert hand(s, 1) == ["8", "9"] and len(of_type(s, "draw")) == 1
    obs = s.observation(2)
    assert obs["pile"] == 0 and obs["hand_sizes"] == [3, 2, 3]


# -- Special cards ----------------------------------------------------------------------------------


@pytest.mark.parametrize("first", ["PB", "5"])
def test_rq7_bounce_in_either_order(first):
    """RQ7, R14, RQ11: a Pass the Buck answers one as one of the two plays; the next turn owes two."""
    second = "5" if first == "PB" else "PB"
    s = position(3, [["CB", "CB", "CB"], ["PB", "5", "6"], ["4", "4", "4"]], ["9", "9", "9"], meter=20,
                 current=1, required=2)
    s.apply(play(first))
    assert s.to_move() == Decision(1, "RD1") and s.q == 2 and "STOP" not in labels(s)
    s.apply(play(second))
    assert s.to_move() == Decision(2, "RD1") and s.observation(0)["required"] == 2
    assert s.meter == 25


def test_rq7_rq11_two_players_back_and_forth():
    """RQ7, RQ11, R14: with two players the burden goes back and forth."""
    s = position(2, [["PB", "4", "5"], ["PB", "6", "7"]], ["9", "9", "9", "8", "8"], meter=0)
    s.apply(play("PB"))
    assert s.to_move() == Decision(1, "RD1") and s.q == 2
    s.apply(play("PB"))
    s.apply(play("6"))
    assert s.to_move() == Decision(0, "RD1") and s.q == 2


def test_rq6_meter_published_after_each_of_the_two_plays():
    """RQ6, R8, R12, R22: under Pass the Buck each play is checked at the meter of its own moment and its
    meter reaches every seat's events before the next play is asked for; the one draw-up comes last."""
    s = position(3, [["4", "5", "6"], ["10", "9", "VS"], ["CB", "CB", "4"]], ["8", "7"], meter=80, current=1,
                 required=2)
    start = len(s.log)
    assert labels(s) == ["9", "10", "VS"]
    s.apply(play("10"))
    first = {"type": "play", "seat": 1, "card": "10", "meter": 90}
    for seat in (0, 1, 2, None):
        assert s.events(seat, start) == [first]
    assert [s.observation(seat)["meter"] for seat in range(3)] == [90, 90, 90]
    # The second required play is checked at 90: the 10 is gone and 9 still fits.
    assert s.to_move() == Decision(1, "RD1") and labels(s) == ["9", "VS"]
    s.apply(play("9"))
    second = {"type": "play", "seat": 1, "card": "9", "meter": 99}
    draw = {"type": "draw", "seat": 1, "count": 2}
    for seat in (0, 2, None):
        assert s.events(seat, start) == [first, second, draw]
    assert s.events(1, start) == [first, second, {**draw, "cards": ["8", "7"]}]
    assert s.to_move() == Decision(2, "RD1") and s.observation(2)["plays"][-2:] == [
        {"seat": 1, "card": "10", "meter": 90}, {"seat": 1, "card": "9", "meter": 99}]


def test_rq9_pass_the_bucks_do_not_stack():
    """RQ9, R14: two Pass the Bucks in one turn still mean exactly 2 plays for the next turn."""
    s = position(3, [["PB", "PB", "5"], ["4", "6", "7"], ["8", "8", "8"]], ["9", "9", "9", "10"], meter=40,
                 required=2)
    s.apply(play("PB"))
    assert s.pending
    s.apply(play("PB"))
    assert s.to_move() == Decision(1, "RD1")
    assert (s.q, s.b, s.pending) == (2, 0, False)
    s.apply(play("4"))
    s.apply(play("6"))
    # Only two: C's turn follows with a single required play.
    assert s.to_move() == Decision(2, "RD1") and s.q == 1


def test_rq9_bounce_plus_overclock_extra_still_owes_two():
    """RQ9, R14, RQ10, RQ13: a Pass the Buck bounced as a required play and another as an Overclock's
    extra do not add up: the next player owes exactly 2 plays and the one after that owes 1."""
    s = position(3, [["PB", "OC", "PB"], ["4", "5", "6"], ["8", "8", "8"]], ["9", "9", "9", "10"], meter=10,
                 required=2)
    s.apply(play("PB"))  # the bounce: one of A's own two required plays
    assert s.to_move() == Decision(0, "RD1") and (s.q, s.pending) == (2, True)
    s.apply(play("OC"))
    assert s.to_move() == Decision(0, "RD2") and labels(s) == ["PB", "STOP"]
    s.apply(play("PB"))  # the Overclock's extra: the second Pass the Buck of the turn
    assert s.meter == 17 and hand(s, 0) == ["9", "9", "9"]
    assert s.to_move() == Decision(1, "RD1")
    obs = s.observation(2)
    assert (obs["required"], obs["bonus"], obs["play"], obs["pending"]) == (2, 0, 1, False)
    s.apply(play("4"))
    assert s.to_move() == Decision(1, "RD1") and "STOP" not in labels(s)
    s.apply(play("5"))
    # Exactly two: B's turn is over (B drew the last card) and C owes a single play.
    assert s.meter == 26 and hand(s, 1) == ["6", "10"]
    assert s.to_move() == Decision(2, "RD1") and s.observation(0)["required"] == 1


def test_rq10_pass_the_buck_as_overclock_extra():
    """RQ10, R16, R14: a Pass the Buck played as the Overclock's extra card takes full effect."""
    s = position(3, [["OC", "PB", "5"], ["4", "6", "7"], ["8", "8", "8"]], ["9", "9", "9"], meter=40)
    s.apply(play("OC"))
    assert labels(s) == ["5", "PB", "STOP"]
    s.apply(play("PB"))
    assert s.meter == 47 and s.to_move() == Decision(1, "RD1") and s.q == 2


def test_rq11_burden_moves_past_empty_hands():
    """RQ11, R13, RQ21, R20: the Pass the Buck burden goes to the next seat that holds cards."""
    s = position(3, [["PB", "4"], [], ["5", "6"]], [], meter=0)
    s.apply(play("PB"))
    assert s.to_move() == Decision(2, "RD1") and s.q == 2


def test_rq11_burden_follows_a_reverse_in_the_same_turn():
    """RQ11, R15, R14: the burdened player is found after the turn's Reverse."""
    s = position(3, [["RP", "PB", "5"], ["4", "6", "7"], ["8", "8", "8"]], ["9", "9", "9"], meter=0,
                 required=2)
    s.apply(play("PB"))
    s.apply(play("RP"))
    assert s.to_move() == Decision(2, "RD1") and s.q == 2 and s.direction == -1


def test_r15_two_active_players_among_five_seats():
    """R15, RQ16, RQ17, R13: with only two of five seats still in, a Reverse flips the direction but the
    other active player still plays next (no skip, no extra turn), whichever way round the search goes."""
    s = position(5, [["RP", "4", "5"], ["RP", "6", "7"], [], [], []], ["9", "9", "9", "8", "8"],
                 tokens=[3, 3, 0, 0, 0], meter=0)
    s.apply(play("RP"))
    # RIGHT from seat 0 passes the eliminated seats 4, 3 and 2 and still reaches seat 1.
    assert (s.direction, s.meter) == (-1, 0)
    assert s.to_move() == Decision(1, "RD1") and (s.q, s.k) == (1, 1) and hand(s, 0) == ["4", "5", "9"]
    s.apply(play("RP"))
    assert s.direction == 1 and s.to_move() == Decision(0, "RD1") and hand(s, 1) == ["6", "7", "9"]
    s.apply(play("4"))
    assert s.to_move() == Decision(1, "RD1")


def test_rq11_rq12_only_holder_owes_two_then_lapse():
    """RQ11, RQ12, R10, R18, RQ22: the Pass the Buck player is the only holder, so they owe two; the
    play they cannot make for want of cards lapses (no overload), then the round is a wash."""
    s = position(3, [["PB", "4"], [], []], [], meter=0, chance=deck_chance(DECK))
    s.apply(play("PB"))
    assert s.to_move() == Decision(0, "RD1") and s.q == 2
    s.apply(play("4"))
    assert of_type(s, "lapse") == [{"type": "lapse", "seat": 0, "count": 1}]
    assert not of_type(s, "overload") and s.tokens == [3, 3, 3]
    assert of_type(s, "wash") == [{"type": "wash", "round": 1}] and s.round == 2


def test_rq12_single_illegal_card_is_an_overload():
    """RQ12, R17: owing two plays and holding one card that does not fit is an overload."""
    s = position(3, [["CB"], ["10"], ["4"]], [], meter=95, current=1, required=2, chance=deck_chance(DECK))
    assert last(s, "overload") == {"type": "overload", "seat": 1, "meter": 95, "hand": ["10"]}
    assert not of_type(s, "lapse") and s.tokens == [3, 2, 3]


def test_rq13_overclock_under_pass_the_buck():
    """RQ13, R7, R16: Q=2 plus one bonus: the third play is optional, and STOP ends it."""
    s = position(3, [["OC", "5", "6"], ["CB", "CB", "CB"], ["4", "4", "4"]], ["9", "9", "9"], meter=10,
                 required=2)
    s.apply(play("5"))
    s.apply(play("OC"))
    assert s.to_move() == Decision(0, "RD2") and (s.q, s.b, s.k) == (2, 1, 3)
    s.apply(STOP)
    assert s.meter == 22 and hand(s, 0) == ["6", "9", "9"]


def test_rq25_overload_discards_turn_and_pending_buck():
    """RQ25, R17, RQ8: an overload mid-turn ends the round at once: no draw-up, no pending Pass the Buck."""
    s = position(3, [["CB", "CB", "CB"], ["PB", "10"], ["4", "4", "4"]], ["9"], meter=95, current=1,
                 required=2, chance=deck_chance(DECK))
    s.apply(play("PB"))
    played = next(i for i, e in enumerate(s.log) if e["type"] == "play")
    assert [e["type"] for e in s.log[played:played + 4]] == ["play", "overload", "token", "round"]
    assert last(s, "overload")["hand"] == ["10"]
    assert not of_type(s, "draw")
    assert s.to_move() == Decision(1, "RD1") and (s.q, s.pending) == (1, False)


# -- Ends of rounds and of the game ------------------------------------------------------------------


def test_r17_rq19_overload_reveals_only_that_hand():
    """R17, RQ19, R22: the overloaded hand is public; the other hands are gathered unseen."""
    s = position(3, [["10", "9", "8"], ["CB", "RL", "4"], ["S", "5", "6"]], ["7"], meter=95,
                 chance=deck_chance(DECK))
    public = s.events(None)
    assert [e for e in public if "hand" in e or "cards" in e] == [
        {"type": "overload", "seat": 0, "meter": 95, "hand": ["8", "9", "10"]}]
    for seat in range(3):
        assert s.observation(seat)["revealed"] == {"seat": 0, "round": 1, "hand": ["8", "9", "10"]}


def test_r3_rq24_elimination_and_next_starter():
    """R3, RQ24, R19, R5: the overloaded player is eliminated at 0 tokens; the next active seat to
    their left starts, skipping an earlier eliminated seat."""
    order = order_with(["S", "4", "5", "6", "7", "8", "9", "10", "VS"])
    s = position(4, [["4", "5", "6"], ["10", "10", "9"], [], ["CB", "CB", "CB"]], ["8"],
                 tokens=[3, 1, 0, 2], meter=95, current=1, chance=deck_chance(order))
    at = next(i for i, e in enumerate(s.log) if e["type"] == "overload")
    assert s.log[at:at + 4] == [
        {"type": "overload", "seat": 1, "meter": 95, "hand": ["9", "10", "10"]},
        {"type": "token", "seat": 1, "tokens": 0},
        {"type": "eliminated", "seat": 1},
        {"type": "round", "round": 2, "starter": 3, "pile": 54},
    ]
    assert s.eliminated == [2, 1] and s.tokens == [3, 0, 0, 2]
    # Dealt from seat 3 leftwards: 3, 0, 3, 0, 3, 0.
    assert s.to_move() == Decision(3, "RD1") and hand(s, 3) == ["S", "5", "7"] and hand(s, 0) == ["4", "6", "8"]
    obs = s.observation(0)
    assert obs["active"] == [True, False, False, True] and obs["eliminated"] == [2, 1]


def test_r21_rq26_last_player_wins_and_no_new_deal():
    """R21, RQ26, R3: the second-to-last player goes out: the game ends, no round is dealt."""
    s = position(2, [["10", "10"], ["4", "4"]], ["9"], tokens=[1, 2], meter=95, chance=ReplayChance([]))
    assert s.to_move() is None and s.legal_actions() == []
    result = s.result()
    assert (result.places, result.winner, result.capped, result.reason) == ((2, 1), 1, False, "normal")
    assert s.log[-1] == {"type": "end", "reason": "normal", "winner": 1, "places": [2, 1], "capped": False}
    assert s.observation(1)["current"] is None
    with pytest.raises(IllegalAction):
        s.apply(play("4"))


def test_places_follow_elimination_order():
    """R21, R3: survivors first, then the eliminated, the later ones ahead."""
    s = position(4, [["10"], [], [], ["4", "4"]], [], tokens=[1, 0, 0, 3], eliminated=[2, 1], meter=95)
    assert s.eliminated == [2, 1, 0]
    assert s.result().places == (2, 3, 4, 1) and s.result().winner == 3


# -- Safety cap -------------------------------------------------------------------------------------


def test_cap_defaults():
    """Safety cap: 200 rounds and 20000 decisions unless configured."""
    s = ReactorState.new(GameConfig(players=2), SeededChance(0))
    assert (s.max_rounds, s.max_decisions) == (200, 20000)


def test_cap_max_rounds_ranks_by_tokens():
    """Safety cap, R19: a round beyond max_rounds is not dealt; survivors rank by tokens, ties share."""
    s = position(3, [["CB", "CB", "CB"], ["10", "10", "9"], ["4", "4", "4"]], ["8"], meter=95, current=1,
                 max_rounds=1, chance=ReplayChance([]))
    result = s.result()
    assert (result.places, result.winner, result.capped, result.reason) == ((1, 3, 1), None, True, "cap")
    assert s.log[-1]["type"] == "end" and s.to_move() is None


def test_cap_with_a_unique_leader_and_eliminated_seat():
    """Safety cap: tokens decide among survivors; eliminated seats rank below them."""
    s = position(4, [["CB", "CB", "CB"], ["10", "10", "9"], ["4", "4", "4"], []], ["8"], meter=95,
                 current=1, tokens=[3, 2, 2, 0], round=5, max_rounds=5, chance=ReplayChance([]))
    assert s.tokens == [3, 1, 2, 0]
    result = s.result()
    assert (result.places, result.winner, result.capped) == ((1, 3, 2, 4), 0, True)


def test_cap_max_decisions_forfeits_not_counted():
    """Safety cap: the game ends right after the max_decisions-th decision; forfeits do not count."""
    s = ReactorState.new(GameConfig(players=3, max_decisions=3), SeededChance(4))
    s.forfeit(0, "timeout")
    for _ in range(3):
        s.apply(s.legal_actions()[0])
    assert s.to_move() is None and len(s.decisions) == 4
    result = s.result()
    assert (result.capped, result.reason, result.forfeits) == (True, "cap", (0,))
    assert result.places[0] == 3 and result.places[1] == result.places[2] == 1 and result.winner is None
    with pytest.raises(IllegalAction):
        s.apply(play("4"))


def test_cap_max_decisions_comes_before_any_automatic_step():
    """Safety cap: the game ends right after the capping decision, so nothing it would have caused
    happens: no draw-up, no hand-over, no overload, no wash, no new deal."""
    hands = [["10", "5", "5"], ["9", "9", "9"]]
    # Without the cap, the 10 brings A's draw-up and B's overload (and a new round).
    free = position(2, hands, ["4"], meter=85, chance=deck_chance(DECK))
    free.apply(play("10"))
    assert of_type(free, "draw") and of_type(free, "overload") and free.round == 2
    chance = deck_chance(DECK)
    s = position(2, hands, ["4"], meter=85, decisions_made=4, max_decisions=5, chance=chance)
    s.apply(play("10"))
    assert s.log[-2:] == [
        {"type": "play", "seat": 0, "card": "10", "meter": 95},
        {"type": "end", "reason": "cap", "winner": None, "places": [1, 1], "capped": True},
    ]
    assert hand(s, 0) == ["5", "5"] and pile(s) == ["4"] and s.tokens == [3, 3] and s.round == 1
    assert not of_type(s, "draw") and not of_type(s, "overload") and chance.pos == 0
    assert s.to_move() is None and s.observation(1)["current"] is None
    assert s.result() == GameResult((1, 1), None, True, (), "cap")
    # The last card of the round as the capping decision: no wash and no deal either.
    s = position(3, [["4"], [], []], [], meter=0, max_decisions=1, chance=ReplayChance([]))
    s.apply(play("4"))
    assert s.log[-1]["type"] == "end" and s.result().capped and s.result().places == (1, 1, 1)
    assert not of_type(s, "wash") and s.round == 1


# -- Forfeits (harness rule) ------------------------------------------------------------------------


def test_forfeit_only_by_the_deciding_seat():
    """Forfeit: only the seat that must decide may forfeit, and not after the end."""
    s = ReactorState.new(GameConfig(players=2), SeededChance(1))
    with pytest.raises(GameError):
        s.forfeit(1, "crash")
    s.forfeit(0, "crash")
    assert s.to_move() is None
    with pytest.raises(GameError):
        s.forfeit(1, "crash")
    result = s.result()
    assert (result.places, result.winner, result.forfeits, result.reason) == ((2, 1), 1, (0,), "forfeit")
    assert s.decisions == [(0, {"type": "forfeit", "reason": "crash"})]


def test_forfeit_mid_turn_keeps_pending_buck_and_hides_hand():
    """Forfeit, R13, R14: no draw-up, the hand leaves unseen, the turn passes on, the mark stays."""
    s = position(3, [["PB", "5", "6"], ["4", "7", "8"], ["9", "9", "9"]], ["10", "10"], meter=30, required=2)
    s.apply(play("PB"))
    start = len(s.log)
    s.forfeit(0, "timeout")
    assert s.log[start:] == [{"type": "forfeit", "seat": 0, "reason": "timeout"}, {"type": "eliminated", "seat": 0}]
    assert s.tokens == [0, 3, 3] and s.hands[0] == [] and pile(s) == ["10", "10"]
    assert s.to_move() == Decision(1, "RD1") and s.q == 2
    assert s.observation(1)["hand_sizes"] == [0, 3, 3]


def test_forfeit_turn_passes_in_current_direction():
    """Forfeit, R13, R15: the turn passes from the forfeiting seat in the direction in force."""
    s = position(4, [["4", "5", "6"], ["RP", "7", "8"], ["9", "9", "9"], ["10", "10", "10"]], ["CB"],
                 meter=0, current=1)
    s.apply(play("RP"))
    s.forfeit(0, "illegal")
    assert s.to_move() == Decision(3, "RD1")


def finish_randomly(state, seed: int = 0):
    rng = random.Random(seed)
    while state.to_move() is not None:
        state.check_invariants()
        state.apply(rng.choice(state.legal_actions()))
    state.check_invariants()
    return state


def replays_exactly(state) -> None:
    record = json.loads(json.dumps(make_record(REACTOR, state, seats=[f"s{i}" for i in range(state.n)])))
    assert replay(REACTOR, record).log == state.log


def test_forfeit_absent_seats_leave_before_the_first_decision():
    """Forfeit (absent seats): a seat whose bot never joined is out before anyone plays and ranks last,
    even if the game ends before its first turn would have come."""
    s = ReactorState.new(GameConfig(players=4), SeededChance(3))
    s.forfeit_absent({2: "startup"})
    assert s.to_move() == Decision(0, "RD1")  # the starter is here: the turn stays with it
    assert s.tokens[2] == 0 and s.hands[2] == [] and s.forfeited == [2]
    assert s.decisions == [(2, {"type": "forfeit", "reason": "startup", "absent": True})]
    assert "hand" not in json.dumps(s.events(0)[-2:])  # the hand leaves unseen
    s.check_invariants()
    finish_randomly(s)
    assert s.result().places[2] == 4 and s.result().forfeits == (2,)
    replays_exactly(s)


def test_forfeit_absent_starter_passes_the_turn_by_r13():
    """Forfeit (absent seats), R13: an absent starter's turn passes to the next seat in the direction."""
    s = ReactorState.new(GameConfig(players=3, starter=1), SeededChance(4))
    s.forfeit_absent({1: "disqualified"})
    assert s.to_move() == Decision(2, "RD1") and s.q == 1
    finish_randomly(s, 1)
    replays_exactly(s)


def test_forfeit_absent_opponent_is_a_walkover_and_all_absent_is_a_tie():
    """Forfeit (absent seats), Places: one seat left wins at once; nobody left ties everyone (no winner)."""
    s = ReactorState.new(GameConfig(players=2), SeededChance(5))
    s.forfeit_absent({1: "startup"})  # before, seat 0 forfeiting first made the absent seat 1 win
    result = s.result()
    assert (result.places, result.winner, result.reason) == ((1, 2), 0, "forfeit")
    replays_exactly(s)
    s = ReactorState.new(GameConfig(players=3), SeededChance(5))
    s.forfeit_absent({0: "startup", 1: "startup", 2: "disqualified"})
    result = s.result()
    assert (result.places, result.winner, result.forfeits) == ((1, 1, 1), None, (0, 1, 2))
    s.check_invariants()
    replays_exactly(s)


def test_forfeit_absent_only_before_the_first_decision():
    """Forfeit (absent seats): not once play has begun, not for a seat out of the game, not after the end."""
    s = ReactorState.new(GameConfig(players=3), SeededChance(6))
    with pytest.raises(GameError, match="seat 3"):
        s.forfeit_absent({3: "startup"})
    s.apply(s.legal_actions()[0])
    with pytest.raises(GameError, match="first decision"):
        s.forfeit_absent({1: "startup"})
    s = ReactorState.new(GameConfig(players=2), SeededChance(6))
    s.forfeit_absent({0: "startup"})
    with pytest.raises(GameError, match="over"):
        s.forfeit_absent({1: "startup"})


def test_forfeit_can_wash_the_round():
    """Forfeit, R18, R19: if no active hand holds a card after a forfeit the round is a wash."""
    s = position(3, [["4"], [], ["5"]], [], meter=0, starter=2, current=0, chance=deck_chance(DECK))
    s.forfeit(0, "timeout")
    assert s.to_move() == Decision(2, "RD1")
    s.apply(play("5"))
    assert of_type(s, "wash") and s.starter == 1
    # Washes never hand an eliminated seat a round; 2 players are left.
    assert [len(h) for h in s.hands] == [0, 3, 3] and len(s.pile) == 54


def test_forfeits_rank_last_and_tie():
    """Forfeit: forfeited seats rank below every other seat, even those eliminated earlier, and tie."""
    s = position(3, [["4", "5", "6"], [], ["7", "8", "9"]], ["10"], tokens=[3, 0, 3], meter=0)
    s.forfeit(0, "crash")
    assert s.result().places == (3, 2, 1)
    s = ReactorState.new(GameConfig(players=3), SeededChance(2))
    s.forfeit(0, "crash")
    s.forfeit(s.to_move().seat, "crash")
    assert s.result().places == (2, 2, 1) and s.result().winner == 2


# -- Matches ----------------------------------------------------------------------------------------


def test_match_starter_rotates_left_and_is_never_random():
    """R4, RQ31, RE2: in a match game 1 starts at the configured seat, each later game one seat to the
    left; a match refuses a random starter, though a single game may still draw one."""
    m = Match(REACTOR, GameConfig(players=3, starter=1, points=5))
    starters = []
    for index in range(4):
        assert not m.over
        cfg = m.next_config()
        s = REACTOR.new_game(cfg, SeededChance(index))
        assert s.log[0] == {"type": "round", "round": 1, "starter": cfg.starter, "pile": 51}
        assert s.to_move() == Decision(cfg.starter, "RD1")
        starters.append(cfg.starter)
        m.record(finish_randomly(s, index).result())
    assert starters == [1, 2, 0, 1]
    with pytest.raises(ConfigError, match="starter"):
        Match(REACTOR, GameConfig(players=3, starter=None))
    chance = SeededChance(4)
    single = REACTOR.new_game(GameConfig(players=3, starter=None), chance)
    assert chance.log[0]["what"] == "starter" and single.starter == chance.log[0]["index"]


# -- Replay, information, API -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4, 6])
def test_re1_re2_replay_reproduces_log_and_result(players):
    """RE1, RE2: the recorded chance events and decisions replay the game exactly."""
    for seed in range(5):
        s = random_game(players, seed, forfeit_rate=0.01, starter=None)
        chance = ReplayChance(json.loads(json.dumps(s.chance.log)))
        again = ReactorState.new(GameConfig(players=players, starter=None), chance)
        for seat, action in s.decisions:
            assert again.to_move().seat == seat
            if action["type"] == "forfeit":
                again.forfeit(seat, action["reason"])
            else:
                again.apply(json.loads(json.dumps(action)))
        assert again.log == s.log and again.result() == s.result() and chance.exhausted
        record = json.loads(json.dumps(make_record(REACTOR, s, seats=["b"] * players, seed=seed)))
        assert replay(REACTOR, record).result() == s.result()


def test_replay_detects_a_wrong_shuffle():
    """RE1: a recorded order that is not the 60 cards is refused."""
    with pytest.raises(ReplayError):
        ReactorState.new(GameConfig(players=2), ReplayChance([{"what": "deck", "order": DECK[:-1]}]))


def _hide(state: ReactorState, seat: int) -> ReactorState:
    """A twin that differs from ``state`` in everything ``seat`` may not see."""
    twin = state.clone()
    swap = {"S": "10", "10": "S", "4": "VS", "VS": "4", "PB": "RL", "RL": "PB"}
    for s in range(twin.n):
        if s != seat:
            twin.hands[s] = [swap.get(c, "CB") for c in twin.hands[s]]
    twin.pile = ["RP"] * len(twin.pile)
    twin.log = [
        {**e, "private": {"to": e["private"]["to"], "cards": ["FR"] * len(e["private"]["cards"])}}
        if "private" in e and seat not in e["private"]["to"] else e
        for e in twin.log
    ]
    return twin


@pytest.mark.parametrize("players", [2, 3, 6])
def test_r22_hidden_information_does_not_leak(players):
    """R22, A.5, RQ19: other hands, the pile order and others' private event parts never reach a seat."""
    rng = random.Random(players)
    s = ReactorState.new(GameConfig(players=players), SeededChance(players))
    checked = 0
    while s.to_move() is not None:
        if rng.random() < 0.5:
            for seat in range(players):
                twin = _hide(s, seat)
                assert twin.observation(seat) == s.observation(seat)
                assert twin.events(seat) == s.events(seat)
                assert twin.events(None) == s.events(None)
                checked += 1
                if s.hands[seat]:
                    # The check can fail: changing the seat's own hand does show.
                    own = s.clone()
                    own.hands[seat] = ["RP"] * len(own.hands[seat])
                    assert own.observation(seat) != s.observation(seat)
        s.apply(rng.choice(s.legal_actions()))
    assert checked > 10


def test_observation_is_plain_json_with_whitelisted_fields():
    """R22, A.5: the observation has exactly the documented fields and survives a JSON round trip."""
    s = random_game(3, 1)
    fields = {"game", "seat", "players", "tokens", "active", "eliminated", "round", "starter", "current", "meter",
              "direction", "pending", "required", "bonus", "play", "hand", "hand_sizes", "pile", "plays", "revealed"}
    s2 = ReactorState.new(GameConfig(players=3), SeededChance(1))
    for state in (s, s2):
        for seat in range(3):
            obs = state.observation(seat)
            assert set(obs) == fields
            assert json.loads(json.dumps(obs)) == obs
    with pytest.raises(GameError):
        s2.observation(3)


def test_actions_are_shared_constants_and_checked():
    """RD1, RD2: legal actions are the module's constants; equal dicts are accepted and recorded canonically."""
    s = position(2, [["S", "10", "PB"], ["CB", "CB", "CB"]], ["4"], meter=0)
    legal = s.legal_actions()
    assert all(any(a is c for c in PLAY_ACTIONS) for a in legal)
    assert [a is b for a, b in zip(legal, s.legal_actions())] == [True] * 4
    legal.reverse()  # a caller reordering its list cannot disturb the engine
    assert labels(s) == ["S=1", "S=11", "10", "PB"]
    s.apply({"card": "S", "value": 11, "type": "play"})
    assert s.decisions[0][1] is PLAY_ACTIONS[1]
    with pytest.raises(IllegalAction):
        s.apply("S")


def test_clone_is_independent():
    """clone(): the copy and the original evolve separately."""
    s = ReactorState.new(GameConfig(players=3), SeededChance(8))
    before = (json.dumps([s.observation(i) for i in range(3)]), len(s.log), len(s.decisions))
    twin = s.clone(SeededChance(9))
    while twin.to_move() is not None:
        twin.apply(twin.legal_actions()[-1])
    assert (json.dumps([s.observation(i) for i in range(3)]), len(s.log), len(s.decisions)) == before
    assert s.clone().chance is s.chance and twin.chance is not s.chance


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_end_uncapped_with_full_ranking(players):
    """R21, R3, R17: random games end with one winner, places 1..n, and consistent token events."""
    for seed in range(30):
        s = random_game(players, seed)
        result = s.result()
        assert not result.capped and sorted(result.places) == list(range(1, players + 1))
        assert s.tokens[result.winner] > 0 and sum(t > 0 for t in s.tokens) == 1
        losses = Counter(e["seat"] for e in of_type(s, "token"))
        assert all(losses[seat] == 3 - s.tokens[seat] for seat in range(players))
        assert len(of_type(s, "overload")) == sum(losses.values())


def test_rq18_direction_resets_after_an_overload():
    """RQ18, R5, R19: a round dealt after an overload starts LEFT even if the last one ran RIGHT."""
    s = position(3, [["CB", "CB", "CB"], ["10", "10", "10"], ["RP", "RP", "RP"]], ["9"], meter=95, current=1,
                 direction=-1, chance=deck_chance(DECK))
    assert (s.round, s.direction, s.starter) == (2, 1, 1)
    s.apply(s.legal_actions()[0])
    assert s.to_move().seat == 2
