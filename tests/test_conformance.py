"""One conformance suite run over every game, every player count and every variant combination.

Property tests over thousands of random games (hypothesis draws the seeds): termination, a
pending decision always has legal actions, illegal actions are refused, determinism by seed,
record replay equality through JSON, the engines' own invariants (card conservation, meter
bounds, King count), and well-formed results.
"""

from __future__ import annotations

import itertools
import random

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import REGISTRY, GameConfig, IllegalAction, SeededChance
from arena.games.record import make_record, replay
from arena.games.policy import RandomPolicy
from arena.games.selfplay import play_game


def tables():
    for game in REGISTRY.values():
        combos = [()]
        for r in range(1, len(game.variants) + 1):
            combos += list(itertools.combinations(game.variants, r))
        for players in range(game.min_players, game.max_players + 1):
            for variants in combos:
                yield pytest.param(game.name, players, variants, id=f"{game.name}-{players}p-{'+'.join(variants) or 'std'}")


TABLES = list(tables())
# Enough for thousands of games in all: 5 Reactor tables of 150 games, 32 Powder Keg tables of 80
# (Reactor's were 300 each: a tenth of the default run's CPU for the least varied game).
# Random games per configuration; a game not listed gets the default.
EXAMPLES = {"reactor": 150, "powder-keg": 80}
DEFAULT_EXAMPLES = 100


def play_checked(game_name: str, players: int, variants: tuple[str, ...], seed: int):
    """Play one random game, checking every step; return the state."""
    game = REGISTRY[game_name]
    state = game.new_game(GameConfig(players=players, variants=variants), SeededChance(seed))
    rng = random.Random(seed)
    steps = 0
    while (decision := state.to_move()) is not None:
        legal = state.legal_actions()
        assert legal, f"{decision} has no legal action"
        assert legal == state.legal_actions(), "legal actions are not stable"
        state.check_invariants()
        obs = state.observation(decision.seat)
        orjson.dumps(obs)  # plain JSON, nothing exotic
        assert obs["seat"] == decision.seat
        if steps % 7 == 0:
            with pytest.raises(IllegalAction):
                state.apply({"type": "nonsense"})
        state.apply(legal[rng.randrange(len(legal))])
        steps += 1
    state.check_invariants()
    return state


@pytest.mark.parametrize(("game_name", "players", "variants"), TABLES)
def test_random_games_conform(game_name: str, players: int, variants: tuple[str, ...]) -> None:
    game = REGISTRY[game_name]

    @settings(max_examples=EXAMPLES.get(game_name, DEFAULT_EXAMPLES), derandomize=True)
    @given(seed=st.integers(min_value=0, max_value=2**32 - 1))
    def check(seed: int) -> None:
        state = play_checked(game_name, players, variants, seed)
        result = state.result()
        # Termination without the safety cap under random play.
        assert not result.capped
        assert len(result.places) == players
        assert sorted(result.places)[0] == 1
        assert result.winner is not None and result.places[result.winner] == 1
        assert list(result.places).count(1) == 1
        # Replay through JSON re-creates every event and the result, without the generator.
        record = orjson.loads(orjson.dumps(make_record(game, state, seats=["r"] * players, seed=seed)))
        again = replay(game, record)
        assert again.result() == result
        # Determinism by seed.
        twin = play_checked(game_name, players, variants, seed)
        assert twin.log == state.log and twin.decisions == state.decisions

    check()


@pytest.mark.parametrize("game_name", sorted(REGISTRY))
def test_illegal_after_end(game_name: str) -> None:
    game = REGISTRY[game_name]
    state = game.new_game(GameConfig(players=2), SeededChance(1))
    play_game(state, [RandomPolicy(random.Random(1)), RandomPolicy(random.Random(2))])
    assert state.to_move() is None
    with pytest.raises(IllegalAction):
        state.apply({"type": "draw"})


@pytest.mark.parametrize("game_name", sorted(REGISTRY))
def test_clone_is_independent(game_name: str) -> None:
    game = REGISTRY[game_name]
    state = game.new_game(GameConfig(players=3), SeededChance(5))
    copy = state.clone(SeededChance(99))
    before = orjson.dumps([state.observation(s) for s in range(3)])
    play_game(copy, [RandomPolicy(random.Random(s)) for s in range(3)])
    assert orjson.dumps([state.observation(s) for s in range(3)]) == before
    assert state.to_move() is not None


@pytest.mark.parametrize("game_name", sorted(REGISTRY))
def test_safety_cap_ends_any_game(game_name: str) -> None:
    """Safety cap: a tiny decision cap ends the game early, capped, with a full ranking."""
    game = REGISTRY[game_name]
    state = game.new_game(GameConfig(players=4, max_decisions=5), SeededChance(3))
    play_game(state, [RandomPolicy(random.Random(s)) for s in range(4)])
    result = state.result()
    assert result.capped and result.reason == "cap"
    assert len(state.decisions) == 5
    assert min(result.places) == 1


@pytest.mark.parametrize("game_name", sorted(REGISTRY))
def test_forfeits_rank_last_and_game_goes_on(game_name: str) -> None:
    """Forfeit (harness rule): the forfeiting seat ranks below every other; the others finish."""
    game = REGISTRY[game_name]
    for seed in range(40):
        state = game.new_game(GameConfig(players=4), SeededChance(seed))
        rng = random.Random(seed)
        victim = None
        while (decision := state.to_move()) is not None:
            if victim is None and rng.random() < 0.05:
                victim = decision.seat
                state.forfeit(decision.seat, "timeout")
                continue
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        state.check_invariants()
        result = state.result()
        if victim is not None:
            assert result.forfeits == (victim,)
            assert result.places[victim] == 4
            assert result.winner != victim
            record = orjson.loads(orjson.dumps(make_record(game, state, seats=["r"] * 4, seed=seed)))
            assert replay(game, record).result() == result
