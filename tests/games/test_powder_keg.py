"""Rule tests for Powder Keg (seeds/powder-keg.md, seeds/powder-keg-engine.md; shared rulings Part B).  Each test cites the rules it checks."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from arena.games.base import ConfigError, GameConfig, GameError, IllegalAction, redact
from arena.games.chance import ReplayChance, SeededChance
from arena.games.match import Match
from arena.games.powder_keg.rules import _TABLE, CODES, DRAW, POWDER_KEG, KegState
from arena.games.record import make_record
from arena.games.record import replay as replay_record

try:
    from tests.games.keg_helpers import ScriptChance, act, config, events, hand, kings_in_pile, move, pile_of, position
except ImportError:  # run without the project root on sys.path
    from keg_helpers import ScriptChance, act, config, events, hand, kings_in_pile, move, pile_of, position

FIVE = "five-different"
SIMPLER = "simpler-double"
SHORT = "short-hands"
ALL_VARIANTS = (FIVE, SIMPLER, SHORT)
FILL3 = ["5", "6", "K", "2", "K"]  # filler for 3-player piles: 2 Kings (R21)


def random_game(players: int, variants=(), seed: int = 0, starter=0, forfeit_rate: float = 0.0, stop=None):
    """Play a random game (random legal actions, occasional forfeits); returns the state."""
    rng = random.Random(f"keg:{players}:{variants}:{seed}")
    state = KegState.new(config(players, *variants, starter=starter), SeededChance(f"chance:{seed}"))
    while state.to_move() is not None:
        state.check_invariants()
        if stop is not None and stop(state):
            break
        if forfeit_rate and rng.random() < forfeit_rate:
            state.forfeit(state.to_move().seat, "bot fault")
            continue
        state.apply(rng.choice(state.legal_actions()))
    state.check_invariants()
    return state


# --- setup ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("short", [False, True])
@pytest.mark.parametrize(
    "n, pile, kings, buckets, removed",
    [(2, 33, 1, 2, {"K": 3, "Bk": 2}), (3, 27, 2, 2, {"K": 2, "Bk": 1}),
     (4, 21, 3, 2, {"K": 1, "Bk": 0}), (5, 14, 4, 1, {"K": 0, "Bk": 0})],
)
def test_kt1_setup_counts(n, pile, kings, buckets, removed, short):
    """KT1, R2, R3, KQ3, R25, KQ37, KE1, KE2: hand and pile sizes, Kings and buckets, cards out of the game."""
    variants = (SHORT,) if short else ()
    s = KegState.new(config(n, *variants), SeededChance(n))
    hand_size = 5 if short else 8
    pile_size = {2: 39, 3: 36, 4: 33, 5: 29}[n] if short else pile
    assert [len(hand(s, p)) for p in range(n)] == [hand_size] * n
    assert all(hand(s, p).count("Bk") >= 1 for p in range(n))
    assert len(s.pile) == pile_size
    assert kings_in_pile(s) == kings and pile_of(s).count("Bk") == buckets
    assert s.observation(0)["removed"] == removed
    everything = Counter(pile_of(s)) + Counter(removed)
    for p in range(n):
        everything += Counter(hand(s, p))
    assert sum(everything.values()) == 54
    assert everything == Counter({"K": 4, "Bk": 6, **{c: 4 for c in CODES[2:]}})
    assert s.observation(0)["discard"] == [] and move(s) == (0, "KD1")
    assert (s.T, s.D) == (1, False)
    setup = s.log[0]
    assert setup["type"] == "setup" and setup["removed"] == removed and setup["kings"] == kings


def test_deal_one_card_at_a_time_from_starter():
    """R3(b), KQ4, KE1, KE2: the dealt order fixes the hands; the pile is KE2's order, top first."""
    deal = [c for c in CODES[2:] for _ in range(4)]  # Q Q Q Q J J J J 10 ...
    chance = ScriptChance(shuffles=[deal])
    s = KegState.new(config(3, starter=1), chance)
    assert chance.calls[0] == ("deal", deal)  # the 44 non-King, non-bucket cards, in the fixed order
    # cards 0, 3, 6 ... go to seat 1 (the starter), 1, 4, 7 ... to seat 2, 2, 5, 8 ... to seat 0
    assert hand(s, 1) == ["Bk", "Q", "Q", "J", "10", "9", "9", "8"]
    assert hand(s, 2) == ["Bk", "Q", "J", "J", "10", "9", "8", "8"]
    assert hand(s, 0) == ["Bk", "Q", "J", "10", "10", "9", "8", "7"]
    what, items = chance.calls[1]
    assert what == "pile" and items == deal[21:] + ["K", "K", "Bk", "Bk"]
    assert pile_of(s) == items  # the scripted "shuffle" kept the order: top first
    assert move(s) == (1, "KD1") and s.starter == 1
    deals = [e for e in s.log if e["type"] == "deal"]
    assert [e["seat"] for e in deals] == [0, 1, 2] and deals[1]["private"] == {"to": [1], "hand": hand(s, 1)}


def test_r1_player_count_refused():
    """R1: only 2 to 5 players."""
    for n in (1, 6):
        with pytest.raises(ConfigError):
            POWDER_KEG.new_game(config(n), SeededChance(0))
        with pytest.raises(ConfigError):
            KegState.new(config(n), SeededChance(0))
    with pytest.raises(ConfigError):
        KegState.new(config(3, "no-such-variant"), SeededChance(0))


def test_ke5_random_starter_recorded():
    """KE5, R20: without a configured starter the seat is a recorded chance event, before the deal."""
    chance = SeededChance(7)
    s = KegState.new(config(4, starter=None), chance)
    first = chance.log[0]
    assert first["what"] == "starter" and first["card"] == str(s.starter)
    assert [e["what"] for e in chance.log] == ["starter", "deal", "pile"]
    assert move(s) == (s.starter, "KD1") and s.log[0]["starter"] == s.starter


def test_kq1_kq2_card_types():
    """KQ1, KQ2, R2: the 13 types and their counts; Aces and jokers are one type Bk (pairs, triple names)."""
    assert CODES == ("K", "Bk", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
    assert POWDER_KEG.variants == ALL_VARIANTS and POWDER_KEG.default_points == 3
    s = position(2, [["Bk", "Bk", "Bk"], ["Bk"]], ["K", "2"])
    legal = s.legal_actions()
    assert {"type": "pair", "card": "Bk", "target": 1} in legal
    assert {"type": "triple", "card": "Bk", "target": 1, "name": "Bk"} in legal
    act(s, type="triple", card="Bk", target=1, name="Bk")
    assert hand(s, 0) == ["Bk"] and hand(s, 1) == []
    assert events(s, "handover")[-1] == {"type": "handover", "seat": 0, "target": 1, "name": "Bk", "moved": True}


# --- the play phase ----------------------------------------------------------------------------------------


def test_kd1_legal_set_exact():
    """KD1, R6, R7, KQ6, KQ26, KQ27: the exact legal list and its fixed order."""
    s = position(3, [["Q", "Bk", "J", "9", "3", "3", "3", "3", "2"], ["4"], ["5"]], FILL3)
    names = ["Bk", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
    expected = [
        {"type": "draw"},
        {"type": "play", "card": "J"},
        {"type": "favour", "target": 1}, {"type": "favour", "target": 2},
        {"type": "pair", "card": "3", "target": 1}, {"type": "pair", "card": "3", "target": 2},
        *[{"type": "triple", "card": "3", "target": t, "name": n} for t in (1, 2) for n in names],
    ]
    assert s.legal_actions() == expected
    assert move(s) == (0, "KD1")
    # single Q, Bk, plain card and four of a kind are never plays (KQ6, KQ26)
    for bad in ({"type": "play", "card": "Q"}, {"type": "play", "card": "Bk"}, {"type": "play", "card": "2"},
                {"type": "play", "card": "9"}, {"type": "four", "card": "3"},
                {"type": "triple", "card": "3", "target": 1, "name": "K"}):
        with pytest.raises(IllegalAction):
            s.apply(bad)


def test_kd1_five_different_listing():
    """R23, KD1, KQ34: with the variant, one FIVE per set of 5 distinct held types, in the fixed order."""
    s = position(3, [["Q", "Bk", "J", "9", "3", "3", "3", "3", "2"], ["4"], ["5"]], FILL3, variants=(FIVE,))
    fives = [a["cards"] for a in s.legal_actions() if a["type"] == "five"]
    assert fives == [["Bk", "Q", "J", "9", "3"], ["Bk", "Q", "J", "9", "2"], ["Bk", "Q", "J", "3", "2"],
                     ["Bk", "Q", "9", "3", "2"], ["Bk", "J", "9", "3", "2"], ["Q", "J", "9", "3", "2"]]
    assert len(s.legal_actions()) == 30 + 6
    with pytest.raises(IllegalAction):  # not in the fixed order
        s.apply({"type": "five", "cards": ["Q", "Bk", "J", "9", "3"]})


def test_r6_empty_hand_only_draws():
    """R6: a player with no cards can only DRAW."""
    s = position(2, [[], ["3"]], ["5", "K"])
    assert s.legal_actions() == [{"type": "draw"}]


def test_r7_kq21_kq39_targets():
    """R7, KQ21, KQ39: targets are the other active players (even empty-handed), never oneself or the
    eliminated; with 2 players the target is always the other player."""
    s = position(4, [["9", "4", "4"], [], ["2"], []], ["5", "K", "K"], active=[0, 1, 2])
    targets = {a["target"] for a in s.legal_actions() if "target" in a}
    assert targets == {1, 2}
    for bad in ({"type": "favour", "target": 0}, {"type": "favour", "target": 3},
                {"type": "pair", "card": "4", "target": 3}, {"type": "pair", "card": "4", "target": 0}):
        with pytest.raises(IllegalAction):
            s.apply(bad)
    two = position(2, [["9", "4", "4"], ["2"]], ["5", "K"])
    assert {a.get("target") for a in two.legal_actions()} == {None, 1}


# --- veto windows ----------------------------------------------------------------------------------------


def veto_table(**kw):
    """4 players: seat 0 (current) holds 10 and Q, seat 1 Q, seat 2 none, seat 3 two Qs."""
    return position(4, [["10", "Q", "5"], ["Q", "2"], ["5"], ["Q", "Q"]], ["5", "6", "K", "K", "K"], **kw)


def test_r13c_kq16_polling_order_all_pass():
    """R13(c), KQ16, KD2: clockwise from the player after the author, ending with the author; only Q holders."""
    s = veto_table()
    act(s, type="play", card="10")
    seen = [move(s)]
    assert s.legal_actions() == [{"type": "pass"}, {"type": "veto"}][::-1]  # VETO, PASS
    act(s, type="pass")
    seen.append(move(s))
    act(s, type="pass")
    seen.append(move(s))
    act(s, type="pass")
    assert seen == [(1, "KD2"), (3, "KD2"), (0, "KD2")]
    assert events(s, "window")[-1] == {"type": "window", "seat": 0, "outcome": "resolved", "vetoes": 0}
    assert move(s) == (1, "KD1") and (s.T, s.D) == (1, False)  # the Skip ended seat 0's only turn
    # the record lists the passes of Q holders (R13d secrecy is about what bots see)
    assert [d for d in s.decisions if d[1]["type"] == "pass"] == [(1, {"type": "pass"}), (3, {"type": "pass"}),
                                                                 (0, {"type": "pass"})]


def test_r13c_e_kq13_kq17_chain_restarts_and_parity():
    """R13(c,e), KQ13, KQ17: polling restarts after each Veto's author; a player may veto twice; parity decides."""
    s = veto_table()
    act(s, type="play", card="10")
    act(s, type="veto")  # seat 1
    assert move(s) == (3, "KD2")  # restart after seat 1: seat 2 holds no Q
    act(s, type="veto")  # seat 3
    assert move(s) == (0, "KD2")
    act(s, type="pass")  # seat 0; seat 1 has no Q left; seat 2 none
    assert move(s) == (3, "KD2")  # the latest author is polled last
    act(s, type="veto")  # seat 3 vetoes its own Veto: 3 Vetoes
    assert move(s) == (0, "KD2")
    act(s, type="pass")
    assert [e["seat"] for e in events(s, "veto")] == [1, 3, 3]
    assert events(s, "window")[-1]["outcome"] == "cancelled"
    assert move(s) == (0, "KD1") and (s.T, s.D) == (1, False)
    assert s.observation(0)["discard"] == ["10", "Q", "Q", "Q"]  # every chain card stays discarded


def test_r13e_even_vetoes_let_the_play_happen():
    """R13(e), KQ17: two Vetoes -> the Skip happens after all."""
    s = veto_table()
    act(s, type="play", card="10")
    act(s, type="veto")  # 1
    act(s, type="veto")  # 3
    act(s, type="pass")  # 0
    act(s, type="pass")  # 3
    assert events(s, "window")[-1] == {"type": "window", "seat": 0, "outcome": "resolved", "vetoes": 2}
    assert move(s) == (1, "KD1")


def test_kq14_self_veto():
    """KQ14, R13(b): the author may veto their own play (polled last)."""
    s = position(3, [["8", "Q"], ["2"], ["3"]], FILL3)
    act(s, type="play", card="8")
    assert move(s) == (0, "KD2")
    act(s, type="veto")
    assert events(s, "veto")[-1] == {"type": "veto", "seat": 0, "vetoes": 1}
    assert move(s) == (0, "KD1")  # nobody else holds a Q: the window closes, cancelled
    assert events(s, "window")[-1]["outcome"] == "cancelled" and events(s, "shuffle") == []


def test_kq15_eliminated_player_never_polled():
    """KQ15, R13(b), R17: an eliminated player (even one whose hand held Qs) never vetoes again."""
    s = position(3, [["J", "10"], ["Q", "Q"], ["Q"]], ["K", "5", "K"], current=1)
    act(s, type="pass") if move(s) == (1, "KD2") else None
    act(s, type="draw")  # seat 1 has no bucket: out, its Qs go face up
    assert s.observation(0)["active"] == [0, 2] and "Q" in s.observation(0)["discard"]
    assert move(s) == (2, "KD1")
    act(s, type="draw")  # 5
    act(s, type="play", card="10")  # seat 0 plays; seat 1 skipped, seat 2 polled
    assert move(s) == (2, "KD2")
    act(s, type="pass")
    assert move(s) == (2, "KD1")
    with pytest.raises(IllegalAction):
        act(s, type="veto")


def test_r13d_polling_is_secret():
    """R13(d), B.5: observations and events of other seats do not reveal who was polled or who passed."""
    x = position(4, [["10", "5"], ["2"], ["Q", "3"], ["Q", "4"]], ["5", "6", "K", "K", "K"])
    y = position(4, [["10", "5"], ["2"], ["6", "3"], ["Q", "4"]], ["5", "6", "K", "K", "K"])
    act(x, type="play", card="10")
    act(y, type="play", card="10")
    assert move(x) == (2, "KD2") and move(y) == (3, "KD2")
    for seat in (0, 1):
        assert x.observation(seat) == y.observation(seat)
        assert x.events(seat) == y.events(seat)
    obs = x.observation(1)
    assert obs["decision"] is None and obs["chain"] == {
        "author": 0, "play": "single", "cards": ["10"], "target": None, "name": None, "vetoes": []}
    act(x, type="pass")
    assert move(x) == (3, "KD2")
    assert x.observation(1) == y.observation(1) and x.events(1) == y.events(1)
    act(x, type="pass")
    act(y, type="pass")
    assert move(x) == move(y) == (1, "KD1")
    for seat in (0, 1):
        assert x.events(seat) == y.events(seat)
    assert not any(e["type"] in ("pass", "poll") for e in x.log)
    assert all("polled" not in e for e in x.log)


def test_kd2_observation_shows_whole_chain():
    """KD2, B.5: the polled player sees the original play (author, target, name) and every Veto's author."""
    s = position(3, [["4", "4", "4"], ["Q", "Q"], ["Q"]], FILL3)
    act(s, type="triple", card="4", target=2, name="Q")
    act(s, type="veto")  # seat 1
    assert move(s) == (2, "KD2")
    obs = s.observation(2)
    assert obs["decision"] == "KD2"
    assert obs["chain"] == {"author": 0, "play": "triple", "cards": ["4", "4", "4"], "target": 2, "name": "Q",
                            "vetoes": [1]}
    act(s, type="veto")  # seat 2 vetoes the Veto
    act(s, type="pass")  # seat 1 (still holds one Q); seat 0 has none
    assert events(s, "window")[-1]["outcome"] == "resolved"
    # seat 2 played its only Q, so the triple finds nothing
    assert events(s, "handover")[-1] == {"type": "handover", "seat": 0, "target": 2, "name": "Q", "moved": False}


def test_spec_example_observation_at_kd2():
    """KD2, B.5, R13(a): the example observation printed in seeds/powder-keg.md section 6."""
    s = position(3, [["4", "4", "4"], ["Q", "Q"], ["Q"]], FILL3, removed={"K": 2, "Bk": 1})
    act(s, type="triple", card="4", target=2, name="Q")
    act(s, type="veto")
    assert s.observation(2) == {
        "game": "powder-keg", "seat": 2, "players": 3, "variants": [], "active": [0, 1, 2], "eliminated": [],
        "forfeited": [], "over": False, "current": 0, "T": 1, "D": False, "starter": 0, "pile": 5, "kings": 2,
        "discard": ["4", "4", "4", "Q"], "hand_sizes": [0, 1, 1], "hand": ["Q"], "removed": {"K": 2, "Bk": 1},
        "chain": {"author": 0, "play": "triple", "cards": ["4", "4", "4"], "target": 2, "name": "Q",
                  "vetoes": [1]},
        "favour": None, "insert": None, "takeable": None, "decision": "KD2",
    }
    s.check_invariants()


def test_kq20_r13g_vetoed_double_and_skip():
    """KQ20, R13(g), KQ19: a vetoed Double or Skip does nothing; T and D unchanged; the turn still needs a draw."""
    s = position(3, [["J", "10", "2"], ["Q", "Q"], ["3"]], ["5", "6", "K", "K"], T=2, D=True)
    act(s, type="play", card="J")
    act(s, type="veto")
    assert move(s) == (1, "KD2")  # seat 1, the Veto's author, still holds a Q and is polled last
    act(s, type="pass")
    assert move(s) == (0, "KD1") and (s.cur, s.T, s.D) == (0, 2, True)
    act(s, type="play", card="10")
    act(s, type="veto")
    assert move(s) == (0, "KD1") and (s.T, s.D) == (2, True)
    with pytest.raises(IllegalAction):  # no Veto aimed at an earlier, settled play (R13f)
        act(s, type="veto")
    act(s, type="draw")
    assert (s.cur, s.T, s.D) == (0, 1, True) and hand(s, 0) == ["5", "2"]


def test_kq18_r18_nothing_else_opens_a_window():
    """R18, KQ18: draws, Kings, buckets, reinsertion and elimination open no veto window."""
    s = position(3, [["Bk"], ["Q"], ["Q"]], ["K", "5", "K"])
    act(s, type="draw")  # King, doused
    assert move(s) == (0, "KD4")
    act(s, type="insert", index=0)
    assert move(s) == (1, "KD1")
    act(s, type="draw")  # King again, seat 1 has no bucket: out
    assert move(s) == (2, "KD1") and not any(d[1]["type"] in ("pass", "veto") for d in s.decisions)


def test_r18_kq18_no_window_after_a_gift_a_pick_or_a_handover():
    """R18, KQ18: once a Favour, pair or triple has its effect, the card that moves opens no new veto window."""
    chance = ScriptChance(picks=[1])  # the pair takes seat 2's 3, so seat 2 keeps its Q
    s = position(3, [["9", "4", "4", "5", "5", "5"], ["Q", "Bk", "2"], ["Q", "3"]], FILL3, chance=chance)

    def play_window():  # the play's own window: the two Q holders are asked, clockwise from seat 1
        assert move(s) == (1, "KD2")
        act(s, type="pass")
        assert move(s) == (2, "KD2")
        act(s, type="pass")

    act(s, type="favour", target=1)
    play_window()
    assert move(s) == (1, "KD3")
    start = len(s.log)
    act(s, type="give", card="2")
    assert [e["type"] for e in s.log[start:]] == ["give"]
    assert move(s) == (0, "KD1") and s.observation(1)["chain"] is None and hand(s, 1) == ["Bk", "Q"]
    act(s, type="pair", card="4", target=2)
    play_window()
    assert [e["type"] for e in s.log[-2:]] == ["window", "steal"] and chance.calls == [("steal", ["Q", "3"])]
    assert move(s) == (0, "KD1") and s.observation(2)["chain"] is None and hand(s, 2) == ["Q"]
    act(s, type="triple", card="5", target=1, name="Bk")
    play_window()
    assert [e["type"] for e in s.log[-2:]] == ["window", "handover"]
    assert move(s) == (0, "KD1") and hand(s, 0) == ["Bk", "3", "2"] and hand(s, 1) == ["Q"]
    assert events(s, "veto") == [] and len(events(s, "window")) == 3  # one window per play, none after
    assert [d for d in s.decisions if d[1]["type"] == "pass"] == [(1, {"type": "pass"}), (2, {"type": "pass"})] * 3


def test_kq25_pair_of_vetoes_and_doubles_have_no_effect():
    """KQ25, R12a, R7(b): pairs of Q or J are plain pairs: they steal, cancel nothing and end no turn."""
    chance = ScriptChance(picks=[0, 0])
    s = position(3, [["Q", "Q", "J", "J"], ["7", "3"], ["Q"]], FILL3, chance=chance)
    act(s, type="pair", card="Q", target=1)
    assert move(s) == (2, "KD2")  # a pair of Vetoes can itself be vetoed, not veto anything
    act(s, type="pass")
    assert chance.calls[-1] == ("steal", ["7", "3"])
    assert hand(s, 0) == ["J", "J", "7"]
    act(s, type="pair", card="J", target=1)
    act(s, type="pass")
    assert chance.calls[-1] == ("steal", ["3"]) and hand(s, 0) == ["7", "3"]
    assert move(s) == (0, "KD1") and (s.T, s.D) == (1, False)  # the turn goes on


# --- Double, Skip, Simpler Double ----------------------------------------------------------------------------


def test_kq7_r8_double_stacking():
    """R4, R8, KQ7: T counts the turn in progress, D marks a Double; normal turn -> 2; first of 2 -> 4; 4 -> 6."""
    s = position(3, [["J"], ["J"], ["J"]], FILL3)
    act(s, type="play", card="J")
    assert (s.cur, s.T, s.D) == (1, 2, True)
    assert events(s, "double")[-1] == {"type": "double", "seat": 0, "next": 1, "T": 2}
    act(s, type="play", card="J")
    assert (s.cur, s.T, s.D) == (2, 4, True)
    act(s, type="play", card="J")
    assert (s.cur, s.T, s.D) == (0, 6, True)
    assert pile_of(s) == FILL3  # nobody drew


def test_kq7_double_on_last_of_two_gives_three():
    """KQ7, R8, R14: a Double on the last of 2 owed turns gives T + 2 = 3."""
    s = position(3, [["3"], ["J"], ["2"]], ["5"] + FILL3, current=1, T=2, D=True)
    act(s, type="draw")
    assert (s.cur, s.T, s.D) == (1, 1, True)
    act(s, type="play", card="J")
    assert (s.cur, s.T, s.D) == (2, 3, True)


def test_r24_kq36_simpler_double():
    """R24, KQ36: with Simpler Double every Double gives exactly 2."""
    s = position(3, [["J"], ["J"], ["J", "J"]], FILL3, variants=(SIMPLER,))
    act(s, type="play", card="J")
    assert (s.cur, s.T) == (1, 2)
    act(s, type="play", card="J")
    assert (s.cur, s.T, s.D) == (2, 2, True)
    act(s, type="draw")
    act(s, type="play", card="J")  # last of 2
    assert (s.cur, s.T, s.D) == (0, 2, True)


def test_kq8_skip_keeps_d_then_double_stacks():
    """KQ8, R9: a Skip ends one owed turn, D stays true, a later Double stacks 1 + 2 = 3."""
    s = position(3, [["2"], ["10", "J"], ["3"]], FILL3, current=1, T=2, D=True)
    act(s, type="play", card="10")
    assert (s.cur, s.T, s.D) == (1, 1, True)
    assert events(s, "skip")[-1] == {"type": "skip", "seat": 1}
    act(s, type="play", card="J")
    assert (s.cur, s.T, s.D) == (2, 3, True)


@pytest.mark.parametrize("active, current, following", [([0, 3, 4], 0, 3), ([2, 3, 4], 4, 2)])
def test_r8_r14_r17_eliminated_seats_are_passed_over(active, current, following):
    """R8, R14, R17: a Double, the end of a turn and an elimination hand play past eliminated seats."""

    def table(cards, pile, **kw):  # 5 seats, two of them out; every active seat holds a card
        hands = [["3"] if seat in active else [] for seat in range(5)]
        hands[current] = cards
        return position(5, hands, pile, active=active, current=current, **kw)

    s = table(["J"], ["5", "K", "K"])
    act(s, type="play", card="J")  # R8: the Double goes to the next active seat
    assert events(s, "double")[-1] == {"type": "double", "seat": current, "next": following, "T": 2}
    assert (s.cur, s.T, s.D) == (following, 2, True) and move(s) == (following, "KD1")
    s = table(["2"], ["5", "K", "K"])
    act(s, type="draw")  # R14: the turn passes to the next active seat
    assert events(s, "turn")[-1] == {"type": "turn", "seat": following, "T": 1, "D": False}
    assert (s.cur, s.T, s.D) == (following, 1, False) and move(s) == (following, "KD1")
    s = table(["2"], ["K", "5", "K"], T=2, D=True)
    act(s, type="draw")  # R17: a King without a bucket; the next active seat starts a normal turn
    assert s.observation(following)["active"] == [seat for seat in active if seat != current]
    assert events(s, "turn")[-1] == {"type": "turn", "seat": following, "T": 1, "D": False}
    assert (s.cur, s.T, s.D) == (following, 1, False) and move(s) == (following, "KD1")


def test_kq39_two_players_double_points_at_the_other():
    """KQ39, R8: with 2 players the Double always goes to the other player."""
    s = position(2, [["J"], ["J"]], ["5", "K"])
    act(s, type="play", card="J")
    assert (s.cur, s.T) == (1, 2)
    act(s, type="play", card="J")
    assert (s.cur, s.T) == (0, 4)


# --- scenarios --------------------------------------------------------------------------------------------------


def kt2(dan):
    return position(3, [["7", "J", "3", "Bk"], dan, ["2", "2", "Bk"]], ["K", "4", "9", "6", "K", "8"])


@pytest.mark.parametrize("branch", ["A", "B"])
def test_kt2_carla_and_dan(branch):
    """KT2, R7, R8, R12, R14, R16, R17, KQ7, KQ9, KQ10, KQ23: the rulebook's example, both branches."""
    s = kt2(["5", "6", "Bk"] if branch == "A" else ["5", "6"])
    start = len(s.log)
    act(s, type="play", card="7")
    assert move(s) == (0, "KD1") and pile_of(s) == ["K", "4", "9", "6", "K", "8"]
    assert events(s, "peek", 0, start) == [{"type": "peek", "seat": 0, "count": 3, "cards": ["K", "4", "9"]}]
    for other in (1, 2):
        assert events(s, "peek", other, start) == [{"type": "peek", "seat": 0, "count": 3}]
    act(s, type="play", card="J")
    assert (s.cur, s.T, s.D) == (1, 2, True) and hand(s, 0) == ["Bk", "3"]  # no draw
    act(s, type="draw")
    assert events(s, "draw", 2)[-1] == {"type": "draw", "seat": 1, "card": "K", "pile": 5}
    if branch == "A":
        assert move(s) == (1, "KD4") and s.legal_actions() == [{"type": "insert", "index": p} for p in range(6)]
        assert s.observation(2)["insert"] == {"min": 0, "max": 5} and s.observation(2)["kings"] == 1
        act(s, type="insert", index=2)
        assert pile_of(s) == ["4", "9", "K", "6", "K", "8"]
        assert (s.cur, s.T, s.D) == (1, 1, True)
        act(s, type="draw")
        assert hand(s, 1) == ["6", "5", "4"]
        assert events(s, "draw", 0)[-1] == {"type": "draw", "seat": 1, "pile": 5}
        assert (s.cur, s.T, s.D) == (2, 1, False)
        assert s.observation(0)["discard"] == ["7", "J", "Bk"]
        assert events(s, "insert", 0)[-1] == {"type": "insert", "seat": 1, "pile": 6}
    else:
        discard = s.observation(2)["discard"]
        assert discard[:3] == ["7", "J", "K"] and sorted(discard[3:]) == ["5", "6"]
        assert discard == ["7", "J", "K", "6", "5"]  # hands are listed in the fixed order (Clarification 6)
        assert events(s, "eliminate", 2)[-1] == {"type": "eliminate", "seat": 1, "cause": "king",
                                                  "hand": ["6", "5"], "pile": 5}
        assert s.observation(0)["active"] == [0, 2]
        assert pile_of(s) == ["4", "9", "6", "K", "8"] and s.observation(0)["kings"] == 1
        assert (s.cur, s.T, s.D) == (2, 1, False) and move(s) == (2, "KD1")


@pytest.mark.parametrize("ending", ["two skips", "skip then draw"])
def test_kt5_skip_while_turns_are_owed(ending):
    """KT5, R5, R9, R14, KQ8: a resolved Skip ends one owed turn before its draw; a draw ends the other."""
    s = position(3, [["2"], ["10", "10", "3"], ["4"]], ["5", "2", "3", "K", "4", "K"], current=1, T=2, D=True)
    act(s, type="play", card="10")
    assert (s.cur, s.T, s.D) == (1, 1, True) and move(s) == (1, "KD1")
    if ending == "two skips":
        act(s, type="play", card="10")
        assert (s.cur, s.T, s.D) == (2, 1, False)
        assert hand(s, 1) == ["3"] and pile_of(s)[0] == "5"
        assert events(s, "draw") == []
    else:
        act(s, type="draw")
        assert hand(s, 1) == ["10", "5", "3"] and (s.cur, s.T, s.D) == (2, 1, False)


def test_kt8_favour():
    """KT8, R10, KD3, KQ21, KQ22, KQ30: Favour on an empty hand, then a chosen gift seen only by the two."""
    s = position(3, [["9", "9", "2"], ["Bk", "4"], []], FILL3)
    with pytest.raises(IllegalAction):
        act(s, type="favour", target=0)
    act(s, type="favour", target=2)
    assert move(s) == (0, "KD1") and hand(s, 0) == ["9", "2"]
    assert events(s, "give")[-1] == {"type": "give", "from": 2, "to": 0, "moved": False}
    act(s, type="favour", target=1)
    assert move(s) == (1, "KD3")
    assert s.legal_actions() == [{"type": "give", "card": "Bk"}, {"type": "give", "card": "4"}]
    assert s.observation(2)["favour"] == {"from": 0, "to": 1}
    act(s, type="give", card="4")
    assert Counter(hand(s, 0)) == Counter(["2", "4"]) and hand(s, 1) == ["Bk"]
    assert events(s, "give", 2)[-1] == {"type": "give", "from": 1, "to": 0, "moved": True}
    for seat in (0, 1):
        assert events(s, "give", seat)[-1] == {"type": "give", "from": 1, "to": 0, "moved": True, "card": "4"}
    assert move(s) == (0, "KD1")


def test_kq21_favour_never_targets_the_eliminated():
    """KQ21, KT8: a Favour cannot target an eliminated player."""
    s = position(4, [["9", "2"], ["3"], ["4"], []], ["5", "K", "K"], active=[0, 1, 2])
    with pytest.raises(IllegalAction):
        act(s, type="favour", target=3)


def test_kq22_favour_may_give_bucket_or_veto():
    """KQ22, KD3: the target may give anything it holds, including a bucket or a Q."""
    s = position(3, [["9"], ["Q", "Bk"], ["3"]], FILL3)
    act(s, type="favour", target=1)
    act(s, type="pass")  # seat 1 holds a Q, so it is polled
    assert move(s) == (1, "KD3")
    assert s.legal_actions() == [{"type": "give", "card": "Bk"}, {"type": "give", "card": "Q"}]
    act(s, type="give", card="Bk")
    assert hand(s, 0) == ["Bk"] and hand(s, 1) == ["Q"]


def test_kt12a_elimination_cancels_owed_turns():
    """KT12(a), R17, KQ10, KQ31: B is out with 2 owed turns left; C begins a normal turn."""
    s = position(3, [["2"], ["3", "4"], ["5"]], ["K", "2", "K", "6"], current=1, T=3, D=True)
    act(s, type="draw")
    assert s.observation(0)["discard"] == ["K", "4", "3"]  # K first, then the hand face up (Clarification 6)
    assert Counter(s.observation(0)["discard"]) == Counter(["K", "3", "4"])
    assert (s.cur, s.T, s.D) == (2, 1, False) and move(s) == (2, "KD1")
    assert kings_in_pile(s) == 1 and s.observation(2)["kings"] == 1


def test_kt12b_last_survivor_wins_at_once():
    """KT12(b), R19, KQ32: elimination leaving one player ends the game; no further decision."""
    s = position(2, [["2"], ["5"]], ["K", "2"], current=1)
    act(s, type="draw")
    assert s.to_move() is None and s.legal_actions() == []
    r = s.result()
    assert (r.places, r.winner, r.capped, r.reason, r.forfeits) == ((1, 2), 0, False, "normal", ())
    assert s.log[-1] == {"type": "end", "reason": "normal", "winner": 0, "places": [1, 2], "capped": False}
    with pytest.raises(IllegalAction):
        act(s, type="draw")


def test_kq32_game_ends_mid_run_of_owed_turns():
    """KQ32, R19: the winner's owed turns do not matter."""
    s = position(2, [["J"], []], ["K", "2"])
    act(s, type="play", card="J")
    assert (s.cur, s.T) == (1, 2)
    act(s, type="draw")
    assert s.to_move() is None and s.result().winner == 0


def test_kt15_match_to_three_points():
    """KT15, R20, KQ5: starters rotate 0, 1, 2, 0, 1; winners A B A C A; A reaches 3 points, no game 6."""
    m = Match(game=POWDER_KEG, config=GameConfig(players=3, starter=0))
    assert m.points == 3
    starters = []
    for index, winner in enumerate([0, 1, 0, 2, 0]):
        assert not m.over
        cfg = m.next_config()
        real = POWDER_KEG.new_game(cfg, SeededChance(index))
        assert move(real) == (cfg.starter, "KD1") and real.starter == cfg.starter
        starters.append(cfg.starter)
        # scripted game: the winner holds buckets, the others none; Kings wait on top
        hands = [["Bk", "Bk"] if seat == winner else [] for seat in range(3)]
        s = position(3, hands, ["K", "K", "5", "6"], current=cfg.starter)
        while s.to_move() is not None:
            if move(s)[1] == "KD4":
                act(s, type="insert", index=0)
            else:
                act(s, type="draw")
        result = s.result()
        assert result.winner == winner and result.places[winner] == 1
        m.record(result)
    assert starters == [0, 1, 2, 0, 1]
    assert m.scores == [3, 1, 1] and m.over and m.winner == 0


def test_r20_a_match_does_not_take_a_random_starter():
    """R20: game 1's starter is a configuration value and each later game's is the seat to the left
    of the previous one.  With starter=None every game drew its own starter, breaking that
    rotation; a match now asks for the first starter (a single game may still draw it: KE5)."""
    with pytest.raises(ConfigError, match="R20"):
        Match(game=POWDER_KEG, config=GameConfig(players=3, starter=None))
    single = POWDER_KEG.new_game(GameConfig(players=3, starter=None), SeededChance(4))
    assert single.starter in (0, 1, 2)


# --- pairs, triples, shuffle, peek --------------------------------------------------------------------------


def test_r12a_ke4_kq29_kq30_pair_steals_a_random_card():
    """R12a, KE4, KQ29, KQ30: uniform pick over the target's sorted hand; only thief and victim see the card."""
    chance = ScriptChance(picks=[2])
    s = position(3, [["6", "6"], ["Bk", "Q", "Q", "2"], ["3"]], FILL3, chance=chance)
    act(s, type="pair", card="6", target=1)
    act(s, type="pass")  # seat 1 holds Q
    assert chance.calls == [("steal", ["Bk", "Q", "Q", "2"])]
    assert hand(s, 0) == ["Q"] and hand(s, 1) == ["Bk", "Q", "2"]
    public = {"type": "steal", "seat": 0, "target": 1, "moved": True}
    assert events(s, "steal", 2)[-1] == public and events(s, "steal", None)[-1] == public
    assert events(s, "steal", 1)[-1] == {**public, "card": "Q"} == events(s, "steal", 0)[-1]


def test_kq29_pair_pick_is_uniform_over_cards():
    """KQ29, KE4: with SeededChance each card (not each type) is equally likely."""
    counts = Counter()
    for seed in range(3000):
        s = position(2, [["3", "3"], ["Bk", "2", "2", "2"]], ["5", "K"], chance=SeededChance(seed))
        act(s, type="pair", card="3", target=1)
        counts[hand(s, 0)[0]] += 1
    assert 600 < counts["Bk"] < 900 and 2100 < counts["2"] < 2400


def test_r12a_pair_of_skips_skips_nothing():
    """R12a, KQ25: a pair of 10s only steals a card; it ends no turn, so the turn still ends with its draw."""
    chance = ScriptChance(picks=[0])
    s = position(3, [["10", "10", "2"], ["3"], ["4"]], FILL3, chance=chance, T=2, D=True)
    act(s, type="pair", card="10", target=1)
    assert events(s, "window")[-1]["outcome"] == "resolved"
    assert events(s, "steal")[-1] == {"type": "steal", "seat": 0, "target": 1, "moved": True}
    assert events(s, "skip") == [] and hand(s, 0) == ["3", "2"] and pile_of(s) == FILL3
    assert move(s) == (0, "KD1") and (s.cur, s.T, s.D) == (0, 2, True)
    act(s, type="draw")
    assert (s.cur, s.T, s.D) == (0, 1, True)


def test_kq28_pair_and_triple_against_empty_hand():
    """KQ28, R12a, R12b: legal; nothing moves; the cards are spent; no chance event."""
    chance = ScriptChance()
    s = position(2, [["4", "4", "5", "5", "5"], []], ["6", "K"], chance=chance)
    act(s, type="pair", card="4", target=1)
    assert events(s, "steal")[-1] == {"type": "steal", "seat": 0, "target": 1, "moved": False}
    act(s, type="triple", card="5", target=1, name="Bk")
    assert events(s, "handover")[-1]["moved"] is False
    assert hand(s, 0) == [] and chance.calls == []
    assert s.observation(1)["discard"] == ["4", "4", "5", "5", "5"]


def test_r12b_kq27_triple_names_a_type():
    """R12b, KQ27, KQ30: one card of the named type moves, publicly; a miss moves nothing."""
    s = position(3, [["8", "8", "8", "7", "7", "7"], ["Bk", "Bk", "2"], ["3"]], FILL3)
    act(s, type="triple", card="8", target=1, name="Bk")
    assert hand(s, 0) == ["Bk", "7", "7", "7"] and hand(s, 1) == ["Bk", "2"]
    assert events(s, "handover", 2)[-1] == {"type": "handover", "seat": 0, "target": 1, "name": "Bk",
                                            "moved": True}
    assert events(s, "shuffle") == []  # three Shuffles do not shuffle (KQ25)
    act(s, type="triple", card="7", target=1, name="Q")
    assert hand(s, 0) == ["Bk"] and events(s, "handover")[-1]["moved"] is False
    assert events(s, "peek") == []


def test_kq26_four_of_a_kind_is_two_pairs():
    """KQ26, R7: no group of four; four identical cards go as a pair then a pair (or triple + one)."""
    chance = ScriptChance(picks=[0, 0])
    s = position(2, [["3", "3", "3", "3"], ["5", "6"]], ["2", "K"], chance=chance)
    assert not any(a.get("card") == "3" and a["type"] not in ("pair", "triple") for a in s.legal_actions())
    act(s, type="pair", card="3", target=1)
    act(s, type="pair", card="3", target=1)
    assert hand(s, 0) == ["6", "5"] and s.observation(0)["discard"] == ["3"] * 4


def test_r11_ke3_kq24_shuffle():
    """R11, KE3, KQ24: the pile takes the recorded order; the event shows only the fact and the size."""
    chance = ScriptChance(shuffles=[["K", "2", "5", "6", "K"]])
    s = position(3, [["8"], ["2"], ["3"]], FILL3, chance=chance)
    act(s, type="play", card="8")
    assert chance.calls == [("shuffle", FILL3)]
    assert pile_of(s) == ["K", "2", "5", "6", "K"]
    assert events(s, "shuffle", None)[-1] == {"type": "shuffle", "seat": 0, "pile": 5}
    assert "private" not in s.log[-1] and move(s) == (0, "KD1")


def test_kq23_r12_peek_shows_fewer_when_pile_is_small():
    """R12, KQ23: min(3, pile) cards in order, nothing moves."""
    s = position(2, [["7"], ["2"]], ["K", "5"])
    act(s, type="play", card="7")
    assert s.log[-1] == {"type": "peek", "seat": 0, "count": 2, "private": {"to": [0], "cards": ["K", "5"]}}
    assert pile_of(s) == ["K", "5"]


# --- Kings ---------------------------------------------------------------------------------------------------


def test_r16_kd4_kq9_kq11_kq12_douse_and_reinsert():
    """R16, KD4, KQ9, KQ11, KQ12: the bucket goes automatically; index 0..N, bottom = N; one owed turn used."""
    s = position(3, [["Bk", "Bk", "2"], ["3"], ["4"]], ["K", "5", "6", "K"], T=2, D=True)
    act(s, type="draw")
    assert hand(s, 0) == ["Bk", "2"] and s.observation(1)["discard"] == ["Bk"]
    assert move(s) == (0, "KD4") and s.legal_actions() == [{"type": "insert", "index": p} for p in range(4)]
    assert s.observation(0)["kings"] == 1  # Clarification 4: one fewer while the King waits
    with pytest.raises(IllegalAction):
        act(s, type="insert", index=4)
    act(s, type="insert", index=3)
    assert pile_of(s) == ["5", "6", "K", "K"]
    assert (s.cur, s.T, s.D) == (0, 1, True)
    assert s.log[-2] == {"type": "insert", "seat": 0, "pile": 4, "private": {"to": [0], "index": 3}}
    assert redact(s.log[-2], 1) == {"type": "insert", "seat": 0, "pile": 4}


def test_clarification3_insert_into_empty_pile():
    """KD4, R16, R21: with 2 players and a one-card pile, INSERT(0) is the only action, still a decision."""
    s = position(2, [["Bk"], ["2"]], ["K"])
    act(s, type="draw")
    assert s.legal_actions() == [{"type": "insert", "index": 0}]
    act(s, type="insert", index=0)
    assert pile_of(s) == ["K"] and s.decisions[-1] == (0, {"type": "insert", "index": 0})


def test_r22_kq12_only_the_inserter_learns_where_the_king_went():
    """R22, KQ12, R16: the inserter sees its range and, later, its index; others only the fact and the new size."""
    s = position(3, [["Bk", "2"], ["3"], ["4"]], ["K", "5", "6", "K"])
    act(s, type="draw")
    for seat in (None, 0, 1, 2):
        assert events(s, "draw", seat)[-1] == {"type": "draw", "seat": 0, "card": "K", "pile": 3}
    assert move(s) == (0, "KD4") and s.legal_actions() == [{"type": "insert", "index": p} for p in range(4)]
    mine, theirs = s.observation(0), s.observation(1)
    assert mine["decision"] == "KD4" and mine["insert"] == {"min": 0, "max": 3} and mine["hand"] == ["2"]
    assert theirs["decision"] is None and theirs["insert"] == {"min": 0, "max": 3}
    # the inserter sees no more of the table than the others: only its own hand and the decision differ
    assert {k for k in mine if mine[k] != theirs[k]} == {"seat", "hand", "decision"}
    after = {}
    for p in range(4):
        t = s.clone()
        act(t, type="insert", index=p)
        after[p] = t
        assert events(t, "insert", 0)[-1] == {"type": "insert", "seat": 0, "pile": 4, "index": p}
        for seat in (None, 1, 2):
            assert events(t, "insert", seat)[-1] == {"type": "insert", "seat": 0, "pile": 4}
    assert pile_of(after[0]) == ["K", "5", "6", "K"] != pile_of(after[3])  # the choices differ ...
    for seat in (1, 2):  # ... but not in anything another seat can see
        assert all(t.observation(seat) == after[0].observation(seat) for t in after.values())
        assert all(t.events(seat) == after[0].events(seat) for t in after.values())
    assert len({json.dumps(t.events(0)) for t in after.values()}) == 4  # the inserter remembers its index


def test_r21_kq33_invariant_in_random_games():
    """R21, KQ33: Kings in the pile = active - 1 at every KD1 (active - 2 while a King waits at KD4)."""
    for seed in range(60):
        n = 2 + seed % 4
        state = KegState.new(config(n, *(ALL_VARIANTS if seed % 2 else ())), SeededChance(seed))
        rng = random.Random(seed)
        while state.to_move() is not None:
            kind = state.to_move().kind
            expect = state.n_active - (2 if kind == "KD4" else 1)
            assert kings_in_pile(state) == expect == state.observation(0)["kings"]
            assert len(state.pile) >= 1 or kind == "KD4"
            state.apply(rng.choice(state.legal_actions()))
        assert state.n_active == 1 and state.result().winner is not None


# --- five different ------------------------------------------------------------------------------------------


def test_r23_kq34_kq35_kd5_five_different():
    """R23, KD5, KQ34, KQ35, Clarification 5: take any non-King card, incl. one just played or a chain Veto."""
    s = position(3, [["Bk", "Q", "J", "10", "2", "9"], ["Q"], ["3"]], FILL3, variants=(FIVE,),
                 discard=["K", "6", "6"])
    act(s, type="five", cards=["Bk", "Q", "J", "10", "2"])
    assert move(s) == (1, "KD2")
    act(s, type="veto")  # seat 1's only Q; nobody holds another, so the window closes
    assert events(s, "window")[-1]["outcome"] == "cancelled" and move(s) == (0, "KD1")
    s = position(3, [["Bk", "Q", "J", "10", "2", "Q"], ["Q", "Q"], ["3"]], FILL3, variants=(FIVE,),
                 discard=["K", "6", "6"])
    act(s, type="five", cards=["Bk", "Q", "J", "10", "2"])
    act(s, type="veto")  # seat 1
    act(s, type="veto")  # seat 0 vetoes the Veto
    act(s, type="pass")  # seat 1
    assert events(s, "window")[-1] == {"type": "window", "seat": 0, "outcome": "resolved", "vetoes": 2}
    assert move(s) == (0, "KD5")
    assert s.observation(0)["discard"] == ["K", "6", "6", "Bk", "Q", "J", "10", "2", "Q", "Q"]
    assert s.observation(2)["takeable"] == ["Bk", "Q", "J", "10", "6", "2"]  # never the King
    assert s.legal_actions() == [{"type": "take", "card": c} for c in ["Bk", "Q", "J", "10", "6", "2"]]
    with pytest.raises(IllegalAction):
        act(s, type="take", card="K")
    other = s.clone()
    act(other, type="take", card="J")  # one of the five just played
    assert other.observation(0)["discard"] == ["K", "6", "6", "Bk", "Q", "10", "2", "Q", "Q"]
    assert hand(other, 0) == ["J"]
    act(s, type="take", card="Q")  # a Veto of the chain (the topmost Q goes)
    assert s.log[-1] == {"type": "take", "seat": 0, "card": "Q"}
    assert hand(s, 0) == ["Q"] and move(s) == (0, "KD1")
    assert s.observation(1)["discard"] == ["K", "6", "6", "Bk", "Q", "J", "10", "2", "Q"]
    assert events(s, "double") == []  # the five cards have no effect of their own


def test_kq30_five_different_take_is_seen_by_every_seat():
    """KQ30, R23, KQ34: every seat sees which card the five-different player took, not the rest of its hand."""

    def game(kept):  # seat 0 keeps one card out of the five; nobody holds a Q, so the window closes at once
        s = position(3, [["Bk", "Q", "J", "10", "2", kept], ["3"], ["4"]], FILL3, variants=(FIVE,),
                     discard=["6"])
        act(s, type="five", cards=["Bk", "Q", "J", "10", "2"])
        assert move(s) == (0, "KD5")
        act(s, type="take", card="J")
        return s

    s = game("7")
    assert "private" not in s.log[-1]
    for seat in (None, 0, 1, 2):
        assert events(s, "take", seat) == [{"type": "take", "seat": 0, "card": "J"}]
    for seat in (0, 1, 2):
        assert s.observation(seat)["discard"] == ["6", "Bk", "Q", "10", "2"]
        assert s.observation(seat)["hand_sizes"] == [2, 1, 1]
    assert hand(s, 0) == ["J", "7"] and move(s) == (0, "KD1")
    other = game("3")  # the kept card differs: the other seats cannot tell
    for seat in (1, 2):
        assert other.observation(seat) == s.observation(seat) and other.events(seat) == s.events(seat)
    assert other.observation(0)["hand"] != s.observation(0)["hand"]


def test_r23_five_is_not_a_play_without_the_variant():
    """R23, R7(d): FIVE only with the variant."""
    s = position(3, [["Bk", "Q", "J", "10", "2"], ["3"], ["4"]], FILL3)
    assert not any(a["type"] == "five" for a in s.legal_actions())
    with pytest.raises(IllegalAction):
        act(s, type="five", cards=["Bk", "Q", "J", "10", "2"])


def test_kq38_variants_combine():
    """KQ38, R23-R25: all three switches at once."""
    s = KegState.new(config(4, *ALL_VARIANTS), SeededChance(3))
    assert len(s.pile) == 33 and [len(hand(s, p)) for p in range(4)] == [5] * 4
    t = position(3, [["J", "2", "3", "4", "5", "6"], ["J"], ["7"]], FILL3, variants=ALL_VARIANTS)
    assert any(a["type"] == "five" for a in t.legal_actions())
    act(t, type="play", card="J")
    act(t, type="play", card="J")
    assert (t.cur, t.T) == (2, 2)


# --- information ---------------------------------------------------------------------------------------------


def test_b5_kq40_observation_fields():
    """B.5, R22, KQ40: the exact observation of a known position."""
    s = position(3, [["Bk", "3", "9"], ["Q", "2"], []], ["5", "K", "6", "K"], discard=["7"],
                 removed={"K": 2, "Bk": 1})
    assert s.observation(1) == {
        "game": "powder-keg", "seat": 1, "players": 3, "variants": [], "active": [0, 1, 2], "eliminated": [],
        "forfeited": [], "over": False, "current": 0, "T": 1, "D": False, "starter": 0, "pile": 4, "kings": 2,
        "discard": ["7"], "hand_sizes": [3, 2, 0], "hand": ["Q", "2"], "removed": {"K": 2, "Bk": 1},
        "chain": None, "favour": None, "insert": None, "takeable": None, "decision": None,
    }
    assert s.observation(0)["decision"] == "KD1" and s.observation(0)["hand"] == ["Bk", "9", "3"]


@pytest.mark.parametrize("seat", [-1, -3, 3])
def test_b5_observation_only_for_seats_at_the_table(seat):
    """B.5: a seat that is not at the table sees nothing (a negative index must not read another hand)."""
    s = position(3, [["Bk", "3", "9"], ["Q", "2"], []], ["5", "K", "6", "K"])
    with pytest.raises(GameError, match="no seat"):
        s.observation(seat)


def scramble_hidden(state: KegState, seat: int, rng: random.Random) -> KegState:
    """A copy where everything hidden from ``seat`` differs: other hands (same sizes), pile order, private
    parts of events not addressed to ``seat``."""
    other = state.clone()
    pool = [t for t in range(1, 13) for _ in range(3)]
    for s in range(other.n):
        if s != seat and other.active[s]:
            counts = [0] * 13
            for _ in range(other.sizes[s]):
                counts[rng.choice(pool)] += 1
            other.hands[s] = counts
    rng.shuffle(other.pile)
    other.log = [
        {**e, "private": {"to": e["private"]["to"], **{k: "?" for k in e["private"] if k != "to"}}}
        if "private" in e and seat not in e["private"]["to"] else e
        for e in other.log
    ]
    return other


def test_b5_r22_kq30_hidden_information_does_not_leak():
    """B.5, R22, KQ30, KQ12: changing what seat s cannot know leaves observation(s) and events(s) unchanged."""
    rng = random.Random(5)
    checked = 0
    for seed in range(30):
        n = 2 + seed % 4
        state = random_game(n, ALL_VARIANTS if seed % 2 else (), seed, stop=lambda st: st.n_decisions >= 25)
        if state.to_move() is None:
            continue
        for seat in range(n):
            if seat == state.to_move().seat:
                continue
            other = scramble_hidden(state, seat, rng)
            assert other.observation(seat) == state.observation(seat)
            assert other.events(seat) == state.events(seat)
            checked += 1
    assert checked > 30
    # and the scramble does change what others may see (the test can fail)
    state = random_game(3, (), 1, stop=lambda st: st.n_decisions >= 10)
    seat = (state.to_move().seat + 1) % 3
    other = scramble_hidden(state, seat, random.Random(0))
    assert any(other.events(s) != state.events(s) for s in range(3) if s != seat) or other.pile != state.pile


def test_draw_event_hides_the_card_but_not_a_king():
    """R15, B.5: others learn only that a non-King was drawn; a King is public."""
    s = position(2, [["2"], ["Bk"]], ["4", "K", "5"])
    act(s, type="draw")
    assert s.log[-2] == {"type": "draw", "seat": 0, "pile": 2, "private": {"to": [0], "card": "4"}}
    act(s, type="draw")
    assert s.log[-2] == {"type": "draw", "seat": 1, "card": "K", "pile": 1}
    assert s.log[-1] == {"type": "douse", "seat": 1}


# --- cap, forfeits, results ------------------------------------------------------------------------------


def test_cap_ends_the_game():
    """Safety cap: max_decisions applied decisions end the game, capped, survivors tied first."""
    s = position(3, [["J"] * 4, ["J"] * 4, ["Bk"]], ["2", "K", "3", "K"], max_decisions=6)
    act(s, type="play", card="J")  # 1 -> seat 1, T=2
    act(s, type="play", card="J")  # 2 -> seat 2, T=4
    act(s, type="draw")  # 3: 2
    act(s, type="draw")  # 4: K, doused
    act(s, type="insert", index=0)  # 5
    assert s.to_move() is not None
    act(s, type="draw")  # 6: K again, no bucket: seat 2 out; cap reached too
    assert s.to_move() is None
    r = s.result()
    assert (r.places, r.winner, r.capped, r.reason) == ((1, 1, 3), None, True, "cap")
    assert s.log[-1]["type"] == "end" and s.log[-1]["reason"] == "cap"
    with pytest.raises(IllegalAction):
        act(s, type="draw")


def test_cap_default_and_forfeits_not_counted():
    """Safety cap: 5000 by default; forfeits do not count as decisions."""
    s = KegState.new(config(3), SeededChance(0))
    assert s.max_decisions == 5000
    s = position(3, [["2"], ["3"], ["4"]], ["5", "6", "K", "K"], max_decisions=1)
    s.forfeit(0, "timeout")
    assert s.to_move() is not None and s.n_decisions == 0
    act(s, type="draw")
    assert s.result().capped


def test_forfeit_at_kd1():
    """Forfeit (KD1): hand and one random pile King go to the discard pile; the next player starts normally."""
    chance = ScriptChance(picks=[1])
    s = position(4, [["Q", "3"], ["2"], ["4"], ["5"]], ["5", "K", "6", "K", "K"], chance=chance, T=3, D=True)
    with pytest.raises(GameError):
        s.forfeit(2)
    s.forfeit(0, "crash")
    assert chance.calls == [("forfeit-king", ["1", "3", "4"])]
    assert pile_of(s) == ["5", "K", "6", "K"]
    assert s.observation(1)["discard"] == ["K", "Q", "3"]
    assert s.decisions == [(0, {"type": "forfeit", "reason": "crash"})]
    assert [e["type"] for e in s.log[-3:]] == ["forfeit", "eliminate", "turn"]
    assert s.log[-2] == {"type": "eliminate", "seat": 0, "cause": "forfeit", "hand": ["Q", "3"], "pile": 4}
    assert (s.cur, s.T, s.D) == (1, 1, False) and s.observation(1)["active"] == [1, 2, 3]
    assert s.observation(1)["forfeited"] == [0]


def test_forfeit_at_kd2_counts_as_pass():
    """Forfeit (KD2): a polled player forfeits, counts as passed; the window goes on; its hand is public."""
    s = veto_table(chance=ScriptChance(picks=[0]))
    act(s, type="play", card="10")
    assert move(s) == (1, "KD2")
    s.forfeit(1)
    assert move(s) == (3, "KD2")
    act(s, type="pass")
    act(s, type="pass")  # seat 0
    assert events(s, "window")[-1]["outcome"] == "resolved"
    assert move(s) == (2, "KD1")  # the Skip resolved; seat 1 is gone


def test_forfeit_at_kd2_by_the_author_abandons_the_chain():
    """Forfeit (KD2, current player): the open play has no effect; the next active player starts normally."""
    s = veto_table(chance=ScriptChance(picks=[0]))
    act(s, type="play", card="10")
    act(s, type="pass")
    act(s, type="pass")
    assert move(s) == (0, "KD2")
    s.forfeit(0)
    assert events(s, "window")[-1] == {"type": "window", "seat": 0, "outcome": "abandoned", "vetoes": 0}
    assert move(s) == (1, "KD1") and (s.T, s.D) == (1, False)


def test_forfeit_at_kd3_favour_gives_nothing():
    """Forfeit (KD3): the Favour's target leaves; nothing is given; the player's turn goes on."""
    s = position(3, [["9"], ["Bk", "2"], ["3"]], FILL3, chance=ScriptChance(picks=[0]))
    act(s, type="favour", target=1)
    s.forfeit(1)
    assert events(s, "give")[-1] == {"type": "give", "from": 1, "to": 0, "moved": False}
    assert move(s) == (0, "KD1") and hand(s, 0) == [] and s.observation(0)["active"] == [0, 2]
    assert kings_in_pile(s) == 1


def test_forfeit_at_kd4_uses_the_waiting_king():
    """Forfeit (KD4): the doused King goes to the discard pile; no chance event; R21 holds."""
    chance = ScriptChance()
    s = position(3, [["Bk", "2"], ["3"], ["4"]], ["K", "5", "K"], chance=chance)
    act(s, type="draw")
    s.forfeit(0)
    assert chance.calls == [] and pile_of(s) == ["5", "K"]
    assert s.observation(1)["discard"] == ["Bk", "K", "2"]
    assert move(s) == (1, "KD1") and kings_in_pile(s) == 1


def test_forfeit_at_kd5_and_last_player_standing():
    """Forfeit (KD5): the turn passes; when one player is left the game ends, forfeits ranked last."""
    s = position(2, [["Bk", "Q", "J", "10", "2"], ["3"]], ["4", "K"], variants=(FIVE,),
                 chance=ScriptChance(picks=[0]))
    act(s, type="five", cards=["Bk", "Q", "J", "10", "2"])
    assert move(s) == (0, "KD5")
    s.forfeit(0, "timeout")
    assert s.to_move() is None
    r = s.result()
    assert (r.places, r.winner, r.forfeits, r.reason) == ((2, 1), 1, (0,), "forfeit")
    with pytest.raises(GameError):
        s.forfeit(1)


def keg_finish_and_replay(s: KegState, seed: int) -> KegState:
    """Play ``s`` out at random (checking invariants) and check that its record replays exactly."""
    rng = random.Random(seed)
    while s.to_move() is not None:
        s.check_invariants()
        s.apply(rng.choice(s.legal_actions()))
    s.check_invariants()
    record = json.loads(json.dumps(make_record(POWDER_KEG, s, seats=[f"s{i}" for i in range(s.n)])))
    assert replay_record(POWDER_KEG, record).log == s.log
    return s


def test_forfeit_absent_seats_leave_before_the_first_decision():
    """Forfeit (absent seats), R21: a seat whose bot never joined leaves before anyone plays, with a pile King
    (a recorded pick); the starter keeps its turn; the seat ranks last."""
    s = KegState.new(config(4), SeededChance(3))
    kings = kings_in_pile(s)
    s.forfeit_absent({2: "startup"})
    assert kings_in_pile(s) == kings - 1 and s.forfeits == [2] and not s.active[2]
    assert s.decisions == [(2, {"type": "forfeit", "reason": "startup", "absent": True})]
    assert s.chance.log[-1]["what"] == "forfeit-king"
    assert move(s) == (0, "KD1") and (s.T, s.D) == (1, False)
    s.check_invariants()
    keg_finish_and_replay(s, 1)
    assert s.result().places[2] == 4


def test_forfeit_absent_starter_hands_the_first_turn_on():
    """Forfeit (absent seats), R4: an absent starter's first turn goes to the next active player clockwise."""
    s = KegState.new(config(3, starter=1), SeededChance(4))
    s.forfeit_absent({1: "disqualified"})
    assert move(s) == (2, "KD1") and kings_in_pile(s) == 1
    keg_finish_and_replay(s, 2)


def test_forfeit_absent_opponent_is_a_walkover_and_all_absent_is_a_tie():
    """Forfeit (absent seats), Places: one seat left wins at once; nobody left ties everyone, no winner;
    every card is still accounted for."""
    s = KegState.new(config(2), SeededChance(5))
    s.forfeit_absent({1: "startup"})
    r = s.result()
    assert (r.places, r.winner, r.reason) == ((1, 2), 0, "forfeit")
    keg_finish_and_replay(s, 3)
    s = KegState.new(config(5), SeededChance(5))
    s.forfeit_absent({seat: "startup" for seat in range(5)})
    r = s.result()
    assert (r.places, r.winner, r.forfeits) == ((1, 1, 1, 1, 1), None, (0, 1, 2, 3, 4))
    assert kings_in_pile(s) == 0
    keg_finish_and_replay(s, 4)  # check_invariants counts every card


def test_forfeit_absent_only_before_the_first_decision():
    """Forfeit (absent seats): not once play has begun, not for a seat out of the game."""
    s = KegState.new(config(3), SeededChance(6))
    with pytest.raises(GameError, match="seat 5"):
        s.forfeit_absent({5: "startup"})
    act(s, type="draw")
    with pytest.raises(GameError, match="first decision"):
        s.forfeit_absent({1: "startup"})


def test_r19_places_follow_elimination_order():
    """R19, R17: survivor first, later eliminations better, forfeits last and tied."""
    s = position(5, [[], [], [], [], []], ["K", "K", "K", "K", "2"], chance=ScriptChance(picks=[0, 0]))
    s.forfeit(0)  # a pile King goes: K K K 2
    act(s, type="draw")  # seat 1 out by a King
    s.forfeit(2)
    act(s, type="draw")  # seat 3 draws a King: out, seat 4 wins
    r = s.result()
    assert (r.places, r.winner, r.forfeits) == ((4, 3, 4, 2, 1), 4, (0, 2))


# --- engine contract -------------------------------------------------------------------------------------------


def test_apply_accepts_equal_dicts_and_rejects_anything_else():
    """KD1-KD5 contract: equal dicts are accepted; extra keys, wrong types and garbage raise IllegalAction."""
    s = position(2, [["J", "3", "3"], ["2"]], ["5", "K"])
    for bad in (None, [], "draw", {}, {"type": "draw", "x": 1}, {"type": "pair", "card": "3", "target": [1]},
                {"type": "pair", "card": 3, "target": 1}, {"type": "insert", "index": 0}, {"type": "take"},
                {"type": "five", "cards": 5}, {"type": "play", "card": "J", "target": 1}):
        with pytest.raises(IllegalAction):
            s.apply(bad)
    assert s.decisions == [] and move(s) == (0, "KD1")
    s.apply({"type": "pair", "card": "3", "target": 1})
    assert s.decisions[0][1] is next(e[0] for e in _TABLE.values() if e[0] == {"type": "pair", "card": "3",
                                                                                 "target": 1})


class _NoChance(ScriptChance):
    pass


def test_legal_set_equals_accepted_set():
    """KD1-KD5: apply accepts exactly the actions legal_actions() offers, at many random decisions."""
    all_actions = [entry[0] for entry in _TABLE.values()]
    kinds = Counter()
    for seed in range(24):
        n = 2 + seed % 4
        for cut in (3, 9, 17):
            state = random_game(n, ALL_VARIANTS if seed % 3 else (), seed,
                                stop=lambda st, c=cut: st.n_decisions >= c)
            if state.to_move() is None:
                continue
            kinds[state.to_move().kind] += 1
            legal = state.legal_actions()
            trial = state.clone(chance=_NoChance())
            accepted = []
            for action in all_actions:
                try:
                    trial.apply(action)
                except IllegalAction:
                    continue
                accepted.append(action)
                trial = state.clone(chance=_NoChance())
            assert accepted == [a for a in all_actions if a in legal]
            assert len(legal) == len(set(map(repr, legal)))
    assert kinds["KD1"] > 10


def test_ke1_ke5_replay_gives_identical_log_and_result():
    """KE1-KE5: replaying SeededChance's record with ReplayChance re-creates log and result exactly."""
    for seed in range(40):
        n = 2 + seed % 4
        variants = ALL_VARIANTS if seed % 2 else ()
        original = random_game(n, variants, seed, starter=None, forfeit_rate=0.01)
        chance_log = original.chance.log
        whats = {e["what"] for e in chance_log}
        assert whats <= {"starter", "deal", "pile", "shuffle", "steal", "forfeit-king"}
        replay_chance = ReplayChance(chance_log)
        replay = KegState.new(config(n, *variants, starter=None), replay_chance)
        for seat, action in original.decisions:
            if action["type"] == "forfeit":
                replay.forfeit(seat, action["reason"])
            else:
                assert replay.to_move().seat == seat
                replay.apply(dict(action))
        assert replay.to_move() is None and replay_chance.exhausted
        assert replay.log == original.log and replay.result() == original.result()


def test_clone_is_independent():
    """clone(): an independent copy, also of the chance source."""
    s = KegState.new(config(3), SeededChance(11))
    c = s.clone()
    rng = random.Random(0)
    while c.to_move() is not None:
        c.apply(rng.choice(c.legal_actions()))
    assert s.n_decisions == 0 and len(s.log) == 5 and len(s.chance.log) == 2
    assert sum(s.sizes) == 24 and len(s.pile) == 27


def test_decisions_record_and_game_registry():
    """KD1-KD5: every decision is recorded as (seat, action); POWDER_KEG's registry entry."""
    s = position(3, [["7", "Q"], ["2"], ["3"]], FILL3)
    act(s, type="play", card="7")
    act(s, type="pass")
    act(s, type="draw")
    assert s.decisions == [(0, {"type": "play", "card": "7"}), (0, {"type": "pass"}), (0, {"type": "draw"})]
    assert (POWDER_KEG.name, POWDER_KEG.min_players, POWDER_KEG.max_players) == ("powder-keg", 2, 5)
    assert POWDER_KEG.state_class is KegState and KegState.game == "powder-keg"
    assert s.legal_actions() is s.legal_actions()  # cached for the pending decision
    assert DRAW in s.legal_actions()
