"""The Powder Keg policies: always a legal action (every table size, every variant combination, with and
without the event feed, mid-game with no memory), deterministic given their rng, the simple heuristic's
rules in a few set positions, and the order of strength random < heuristic < strong by a margin that
chance alone does not produce."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.games import GameConfig, SeededChance, get_game
from arena.games.powder_keg.rules import DRAW, FAVOUR_ACTION, INSERT, PAIR, PASS, SINGLE, VARIANTS, VETO, KegState
from arena.games.policy import Policy, RandomPolicy, make_policy
from arena.games.powder_keg.policies import POLICIES, KegCounting, KegHeuristic, KegStrong
from arena.games.selfplay import play_game

GAME = get_game("powder-keg")
COMBOS = [c for r in range(len(VARIANTS) + 1) for c in itertools.combinations(VARIANTS, r)]


def _legal_game(players: int, variants: tuple[str, ...], seed: str, fed: bool) -> int:
    """Play one game with a random mix of seats; check every action of ours; return the checks made."""
    rng = random.Random(seed)
    kinds = [rng.choice([RandomPolicy, KegHeuristic, KegCounting, KegStrong]) for _ in range(players)]
    policies = [kind(random.Random(f"{seed}:{s}")) for s, kind in enumerate(kinds)]
    state = GAME.new_game(GameConfig(players=players, variants=variants, starter=None), SeededChance(seed))
    cursors = [0] * players
    checks = 0
    while (decision := state.to_move()) is not None:
        seat = decision.seat
        policy = policies[seat]
        legal = state.legal_actions()
        if isinstance(policy, RandomPolicy):
            state.apply(policy.act(None, legal))
            continue
        if fed and hasattr(policy, "observe_events"):
            policy.observe_events(state.events(seat, cursors[seat]))
            cursors[seat] = len(state.log)
        observation = state.observation(seat)
        action = policy.act(observation, legal)
        assert any(action is a for a in legal), (action, observation)
        # A fresh policy dropped into the middle of the game (no memory at all) must cope as well.
        stranger = type(policy)(random.Random(checks))
        other = stranger.act(observation, legal)
        assert any(other is a for a in legal), (other, observation)
        state.apply(action)
        checks += 1
    return checks


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("variants", COMBOS, ids=lambda c: "+".join(c) or "std")
def test_always_legal(players: int, variants: tuple[str, ...]) -> None:
    checks = 0
    for g in range(3):
        checks += _legal_game(players, variants, f"legal:{players}:{'+'.join(variants)}:{g}", fed=g == 2)
    assert checks > 0


def test_registered() -> None:
    assert set(POLICIES) == {"heuristic", "strong", "counting"}
    rng = random.Random(0)
    assert isinstance(make_policy("powder-keg", "strong", rng), KegStrong)
    assert type(make_policy("powder-keg", "heuristic", rng)) is KegHeuristic
    assert type(make_policy("powder-keg", "counting", rng)) is KegCounting


@pytest.mark.parametrize("name", ["heuristic", "counting", "strong"])
def test_deterministic(name: str) -> None:
    def transcript() -> list:
        policies = [make_policy("powder-keg", name if s % 2 == 0 else "random", random.Random(f"det:{s}"))
                    for s in range(4)]
        state = play_game(GAME.new_game(GameConfig(players=4), SeededChance("det")), policies)
        return [(seat, dict(action)) for seat, action in state.decisions]

    assert transcript() == transcript()


def test_simple_heuristic_keeps_no_memory() -> None:
    """The simple heuristic answers from the observation alone: a fresh one always agrees with a used one."""
    used = KegHeuristic(random.Random(1))
    state = GAME.new_game(GameConfig(players=4, variants=VARIANTS), SeededChance("memoryless"))
    policies: list[Policy] = [used] + [RandomPolicy(random.Random(s)) for s in range(1, 4)]
    while (decision := state.to_move()) is not None:
        legal = state.legal_actions()
        if decision.seat == 0:
            observation = state.observation(0)
            action = used.act(observation, legal)
            assert action is KegHeuristic(random.Random(99)).act(observation, legal)
        else:
            action = policies[decision.seat].act(None, legal)
        state.apply(action)


# -- the simple rules in set positions -----------------------------------------------------------------------------


def _position(hands: list[list[str]], pile: list[str], **kw) -> KegState:
    """A four-seat game set up directly (pile top first), seat 0 to play unless told otherwise."""
    return KegState.from_position(GameConfig(players=4), hands, pile, chance=SeededChance(0), **kw)


def _simple(state: KegState) -> dict:
    seat = state.to_move().seat
    return KegHeuristic(random.Random(0)).act(state.observation(seat), state.legal_actions())


PLAIN_PILE = ["4"] * 17 + ["K", "K", "K"]  # 3 Kings in 20 cards: 15%, not above the threshold


def test_simple_steals_with_a_plain_pair_from_the_biggest_hand() -> None:
    state = _position([["Bk", "10", "5", "5", "2"], ["3"] * 3, ["3"] * 6, ["3"] * 2], PLAIN_PILE)
    assert _simple(state) is PAIR[9, 2]  # the pair of 5s (type 9), aimed at seat 2


def test_simple_asks_the_biggest_hand_for_a_favour() -> None:
    state = _position([["Bk", "9", "5", "2"], ["3"] * 5, ["3"] * 1, ["3"] * 2], PLAIN_PILE)
    assert _simple(state) is FAVOUR_ACTION[1]


def test_simple_draws_when_the_pile_is_safe_enough() -> None:
    state = _position([["10", "J", "2"], ["3"], ["3"], ["3"]], PLAIN_PILE)
    assert _simple(state) is DRAW


def test_simple_skips_a_risky_draw_without_a_bucket_but_draws_with_one() -> None:
    risky = ["4"] * 9 + ["K", "K", "K"]  # 25%
    assert _simple(_position([["10", "J", "2"], ["3"], ["3"], ["3"]], risky)) is SINGLE[4]
    assert _simple(_position([["J", "2"], ["3"], ["3"], ["3"]], risky)) is SINGLE[3]
    assert _simple(_position([["Bk", "10", "J", "2"], ["3"], ["3"], ["3"]], risky)) is DRAW
    assert _simple(_position([["2"], ["3"], ["3"], ["3"]], risky)) is DRAW  # nothing to dodge with


def test_simple_doubles_away_owed_turns_without_a_bucket() -> None:
    state = _position([["10", "J", "2"], ["3"], ["3"], ["3"]], PLAIN_PILE, T=2, D=True)
    assert _simple(state) is SINGLE[3]


def test_simple_hands_a_doused_king_to_the_next_drawer() -> None:
    state = _position([["Bk", "2"], ["3"], ["3"], ["3"]], ["K"] + PLAIN_PILE[:-1])
    state.apply(DRAW)
    assert state.to_move().kind == "KD4"
    assert _simple(state) is INSERT[0]


def test_simple_vetoes_a_steal_aimed_at_it_and_lets_others_be() -> None:
    hands = [["5", "5", "6", "6"], ["Q", "Bk", "2"], ["Q", "3"], ["3"]]
    state = _position(hands, PLAIN_PILE)
    state.apply(PAIR[9, 2])  # a pair of 5s aimed at seat 2
    assert state.to_move().seat == 1
    assert _simple(state) is PASS
    state.apply(PASS)
    assert state.to_move().seat == 2
    assert _simple(state) is VETO


def test_simple_gives_its_cheapest_card() -> None:
    state = _position([["9", "2"], ["Bk", "J", "Q", "7", "3"], ["3"], ["3"]], PLAIN_PILE)
    state.apply(FAVOUR_ACTION[1])
    while state.to_move().kind == "KD2":  # nobody holding a Queen wants to stop this Favour
        state.apply(PASS)
    assert state.to_move().kind == "KD3"
    assert _simple(state)["card"] == "3"


# -- strength --------------------------------------------------------------------------------------------------------


def _mean_place(candidate: str, opponent: str, games: int, seed: str, players: int = 4) -> tuple[float, float]:
    """Mean place and win rate of one candidate seat (rotating) against a table of one opponent."""
    places, wins = [], 0
    for g in range(games):
        seat = g % players
        policies = [make_policy("powder-keg", candidate if s == seat else opponent, random.Random(f"{seed}:{g}:{s}"))
                    for s in range(players)]
        state = play_game(GAME.new_game(GameConfig(players=players), SeededChance(f"{seed}:{g}")), policies)
        result = state.result()
        places.append(result.places[seat])
        wins += result.winner == seat
    return sum(places) / games, wins / games


@pytest.mark.parametrize(("candidate", "opponent"), [("heuristic", "random"), ("strong", "heuristic")])
def test_clearly_stronger(candidate: str, opponent: str) -> None:
    # An equal bot has mean place 2.5 with a standard error near 0.065 over 300 games at four seats, so a
    # mean below 2.2 (more than four standard errors) does not happen by luck; the margins measured are wider.
    mean, wins = _mean_place(candidate, opponent, 300, f"strength:{candidate}:{opponent}")
    assert mean < 2.2, mean
    assert wins > 0.35, wins
