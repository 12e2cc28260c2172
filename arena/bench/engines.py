"""Engine speed: in-process random playouts of each game, decisions and games a second."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from arena.games import REGISTRY, GameConfig, SeededChance


@dataclass(frozen=True, slots=True)
class EngineSpeed:
    """Random-playout speed of one game at one table size, on one core."""

    game: str
    players: int
    games_per_s: float
    decisions_per_s: float
    decisions_per_game: float


def random_playouts(game_name: str, players: int, games: int, seed: int = 0) -> tuple[float, int]:
    """Play ``games`` random games in-process; return (seconds, decisions)."""
    game = REGISTRY[game_name]
    config = GameConfig(players=players)
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        state = game.new_game(config, SeededChance(f"{seed}:{g}"))
        legal_actions, apply, to_move = state.legal_actions, state.apply, state.to_move
        while to_move() is not None:
            legal = legal_actions()
            apply(legal[rng.randrange(len(legal))])
        decisions += len(state.decisions)
    return time.perf_counter() - start, decisions


def engine_speed(game_name: str, players: int, games: int = 200, repeats: int = 5) -> EngineSpeed:
    """Median over ``repeats`` runs of ``games`` random playouts."""
    runs = [random_playouts(game_name, players, games, seed=r) for r in range(repeats)]
    seconds, decisions = sorted(runs, key=lambda run: run[1] / run[0])[len(runs) // 2]
    return EngineSpeed(game_name, players, games / seconds, decisions / seconds,
                       statistics.median(d / games for _, d in runs))


def engine_table(players_by_game: dict[str, list[int]] | None = None, games: int = 200,
                 repeats: int = 5) -> list[EngineSpeed]:
    """Engine speed for each game and table size (default: every allowed size)."""
    if players_by_game is None:
        players_by_game = {n: list(range(g.min_players, g.max_players + 1)) for n, g in REGISTRY.items()}
    return [engine_speed(name, n, games, repeats) for name, sizes in players_by_game.items() for n in sizes]
