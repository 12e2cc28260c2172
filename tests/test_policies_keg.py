"""The Powder Keg policies: always a legal action (every table size, every variant combination, with and
without the event feed, mid-game with no memory), deterministic given their rng, and the strong one
clearly better than random play."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.games import GameConfig, SeededChance, get_game
from arena.games.powder_keg import VARIANTS
from arena.policies import RandomPolicy, make_policy
from arena.policies.powder_keg import POLICIES, KegHeuristic, KegStrong
from arena.selfplay import play_game

GAME = get_game("powder-keg")
COMBOS = [c for r in range(len(VARIANTS) + 1) for c in itertools.combinations(VARIANTS, r)]


class QuickStrong(KegStrong):
    """The strong policy with a small search, to keep the legality sweeps fast."""

    deals = 2


def _legal_game(players: int, variants: tuple[str, ...], seed: str, fed: bool) -> int:
    """Play one game with a random mix of seats; check every action of ours; return the checks made."""
    rng = random.Random(seed)
    kinds = [rng.choice([RandomPolicy, KegHeuristic, QuickStrong]) for _ in range(players)]
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
        if fed:
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
    assert set(POLICIES) == {"heuristic", "strong"}
    rng = random.Random(0)
    assert isinstance(make_policy("powder-keg", "strong", rng), KegStrong)
    assert isinstance(make_policy("powder-keg", "heuristic", rng), KegHeuristic)


@pytest.mark.parametrize("name", ["heuristic", "strong"])
def test_deterministic(name: str) -> None:
    def transcript() -> list:
        policies = [make_policy("powder-keg", name if s % 2 == 0 else "random", random.Random(f"det:{s}"))
                    for s in range(4)]
        state = play_game(GAME.new_game(GameConfig(players=4), SeededChance("det")), policies)
        return [(seat, dict(action)) for seat, action in state.decisions]

    assert transcript() == transcript()


def _mean_place(players: int, games: int, seed: str) -> tuple[float, float]:
    """Mean place and win rate of one strong seat (rotating) against random seats."""
    places, wins = [], 0
    for g in range(games):
        seat = g % players
        policies = [RandomPolicy(random.Random(f"{seed}:{g}:{s}")) for s in range(players)]
        policies[seat] = KegStrong(random.Random(f"{seed}:{g}:{seat}"))
        state = play_game(GAME.new_game(GameConfig(players=players), SeededChance(f"{seed}:{g}")), policies)
        result = state.result()
        places.append(result.places[seat])
        wins += result.winner == seat
    return sum(places) / games, wins / games


@pytest.mark.parametrize("players", [3, 4])
def test_strong_beats_random(players: int) -> None:
    mean, wins = _mean_place(players, 60, f"strength:{players}")
    equal = (players + 1) / 2
    assert mean < equal - 0.4, mean
    assert wins > 2.0 / players, wins
