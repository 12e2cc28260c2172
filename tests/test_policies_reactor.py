"""The Reactor policies: always legal, reproducible from their seed, and the strong one is strong."""

from __future__ import annotations

import math
import random

import pytest

from arena.games import GameConfig, SeededChance, get_game
from arena.games.reactor import COUNTS, DECK, ReactorState
from arena.policies import RandomPolicy, make_policy
from arena.policies.reactor import POLICIES, ReactorHeuristic, ReactorStrong, unseen_cards
from arena.selfplay import play_game

REACTOR = get_game("reactor")


def random_position(rng: random.Random, players: int) -> ReactorState:
    """A random mid-round position (some seats out, short hands, any quotas), run to its first decision."""
    while True:
        cards = list(DECK)
        rng.shuffle(cards)
        tokens = [rng.choice((0, 1, 2, 3)) for _ in range(players)]
        current = rng.randrange(players)
        tokens[current] = max(tokens[current], 1)
        if sum(t > 0 for t in tokens) < 2:
            continue
        hands = []
        for s in range(players):
            size = 0 if tokens[s] == 0 else rng.randint(1 if s == current else 0, 3)
            hands.append([cards.pop() for _ in range(size)])
        pile = [cards.pop() for _ in range(rng.choice((0, 0, 1, 2, rng.randrange(len(cards) - 10))))]
        required = rng.choice((1, 2))
        bonus = rng.choice((0, 0, 1, 2))
        state = ReactorState.from_position(
            GameConfig(players=players), hands, pile, chance=SeededChance(rng.random()),
            meter=rng.randrange(100), current=current, required=required, bonus=bonus,
            play=rng.randint(1, required + bonus), direction=rng.choice((1, -1)),
            pending=rng.random() < 0.2, tokens=tokens,
        )
        if state.to_move() is not None:
            return state


def _check_choice(policy, state: ReactorState) -> None:
    seat = state.to_move().seat
    legal = state.legal_actions()
    action = policy.act(state.observation(seat), legal)
    assert any(action is a for a in legal), f"{action!r} is not one of {legal!r}"


@pytest.mark.parametrize("name", sorted(POLICIES))
@pytest.mark.parametrize("players", range(2, 7))
def test_a_legal_action_in_random_positions(name: str, players: int) -> None:
    rng = random.Random(f"positions:{name}:{players}")
    policy = make_policy("reactor", name, random.Random(1))
    for _ in range(60):
        state = random_position(rng, players)
        _check_choice(policy, state)
        # And a few decisions further on, with plays on the table.
        for _ in range(5):
            if state.to_move() is None:
                break
            _check_choice(policy, state)
            state.apply(state.legal_actions()[rng.randrange(len(state.legal_actions()))])


@pytest.mark.parametrize("players", range(2, 7))
def test_a_legal_action_through_whole_games(players: int) -> None:
    names = ["strong", "heuristic", "random"]
    for g in range(2):
        state = REACTOR.new_game(GameConfig(players=players), SeededChance(f"games:{players}:{g}"))
        policies = [make_policy("reactor", names[(s + g) % 3], random.Random(s)) for s in range(players)]
        while (decision := state.to_move()) is not None:
            legal = state.legal_actions()
            action = policies[decision.seat].act(state.observation(decision.seat), legal)
            assert any(action is a for a in legal)
            state.apply(action)
        state.check_invariants()


def test_unseen_cards_are_the_deck_minus_what_the_seat_saw() -> None:
    state = REACTOR.new_game(GameConfig(players=3), SeededChance("unseen"))
    for _ in range(7):
        state.apply(state.legal_actions()[0])
    seat = state.to_move().seat
    observation = state.observation(seat)
    unseen = unseen_cards(observation)
    seen = [p["card"] for p in observation["plays"]] + observation["hand"]
    assert len(unseen) == len(DECK) - len(seen)
    for code, count in COUNTS.items():
        assert unseen.count(code) == count - seen.count(code)


@pytest.mark.parametrize("cls", [ReactorHeuristic, ReactorStrong])
def test_same_seed_same_game(cls) -> None:
    def transcript(seed: int) -> list:
        policies = [cls(random.Random(seed + s)) for s in range(4)]
        state = play_game(REACTOR.new_game(GameConfig(players=4), SeededChance("same")), policies)
        return state.decisions

    assert transcript(7) == transcript(7)


def test_strong_beats_random_clearly() -> None:
    # Fixed seeds: the outcome is deterministic; the margin asked for is many standard errors.
    diffs = []
    for players in (3, 4):
        for g in range(75):
            seat = g % players
            deal = f"strength:{players}:{g}"
            policies = [
                ReactorStrong(random.Random(f"{deal}:{s}")) if s == seat else RandomPolicy(random.Random(f"{deal}:{s}"))
                for s in range(players)
            ]
            places = play_game(REACTOR.new_game(GameConfig(players=players), SeededChance(deal)), policies).result().places
            others = [places[s] for s in range(players) if s != seat]
            diffs.append(sum(others) / len(others) - places[seat])  # > 0: strong placed better
    mean = sum(diffs) / len(diffs)
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1) / len(diffs))
    assert mean > 1.0 and mean > 8 * se, (mean, se)
