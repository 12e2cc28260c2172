"""Measure built-in bots against each other: one candidate seated with (players - 1) copies of an opponent.

    python benchmarks/bot_strength.py --game reactor --players 4 --games 400 --seed 1
    python benchmarks/bot_strength.py --game reactor --players 2 --pair strong:random

The candidate moves through every seat in turn (game g puts it in seat g mod players) and game g
is dealt from the same seed for every pair, so pairs are compared on the same deals.  Printed per
pair: games, the candidate's win rate (1/players is what an equal bot gets), its mean place with a
95% confidence interval (normal approximation), the mean place an equal bot gets, and the
candidate's average thinking time per decision.  In-process, single core; no subprocesses.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass

from arena.games import GameConfig, SeededChance, get_game
from arena.games.base import Action, Observation
from arena.games.policy import Policy, make_policy, policy_names
from arena.games.selfplay import play_game


@dataclass(frozen=True, slots=True)
class Strength:
    """How one candidate did against a table of one opponent."""

    candidate: str
    opponent: str
    games: int
    wins: int
    mean_place: float
    half_width: float  # of the 95% confidence interval of the mean place
    equal_place: float  # the mean place of a bot as strong as the opponents
    ms_per_decision: float


class _Timed(Policy):
    """Wraps a policy and adds up the time it spends choosing."""

    def __init__(self, inner: Policy) -> None:
        super().__init__(inner.rng)
        self.inner = inner
        self.needs_observation = inner.needs_observation
        if hasattr(inner, "observe_events"):  # fed by play_game, as a bot program is by the referee
            self.observe_events = inner.observe_events
        self.seconds = 0.0
        self.decisions = 0

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        start = time.perf_counter()
        action = self.inner.act(observation, legal)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return action


def measure(game_name: str, players: int, games: int, seed: int | str, candidate: str, opponent: str) -> Strength:
    """Play ``games`` games of ``candidate`` against ``players - 1`` copies of ``opponent``."""
    game = get_game(game_name)
    config = GameConfig(players=players)
    game.check_config(config)
    places: list[int] = []
    wins = 0
    seconds = 0.0
    decisions = 0
    for g in range(games):
        seat = g % players
        deal = f"{seed}:{g}"
        policies: list[Policy] = [
            make_policy(game.name, candidate if s == seat else opponent, random.Random(f"{deal}:{s}"))
            for s in range(players)
        ]
        timed = policies[seat] = _Timed(policies[seat])
        state = play_game(game.new_game(config, SeededChance(deal)), policies)
        result = state.result()
        places.append(result.places[seat])
        wins += result.winner == seat
        seconds += timed.seconds
        decisions += timed.decisions
    mean = sum(places) / games
    var = sum((p - mean) ** 2 for p in places) / (games - 1) if games > 1 else 0.0
    return Strength(
        candidate=candidate,
        opponent=opponent,
        games=games,
        wins=wins,
        mean_place=mean,
        half_width=1.96 * math.sqrt(var / games),
        equal_place=(players + 1) / 2,
        ms_per_decision=1000.0 * seconds / max(decisions, 1),
    )


def default_pairs(game_name: str) -> list[tuple[str, str]]:
    """Every built-in bot against each one listed before it (random first)."""
    names = policy_names(game_name)
    return [(names[j], names[i]) for j in range(1, len(names)) for i in range(j)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="reactor", help="a registered game")
    parser.add_argument("--players", type=int, default=4, help="seats at the table")
    parser.add_argument("--games", type=int, default=400, help="games per pair")
    parser.add_argument("--seed", default="1", help="root seed of the deals and the bots")
    parser.add_argument("--pair", action="append", metavar="CANDIDATE:OPPONENT",
                        help="a pair to measure (repeatable; default: every bot against every weaker one)")
    args = parser.parse_args()
    pairs = [tuple(p.split(":", 1)) for p in args.pair] if args.pair else default_pairs(args.game)
    if not pairs:
        print(f"{args.game} has no built-in bots besides random")
        return
    print(f"{args.game}, {args.players} players, {args.games} games per pair, seed {args.seed}")
    print(f"{'candidate':<12}{'opponent':<12}{'games':>6}{'win rate':>10}{'(equal)':>9}"
          f"{'mean place':>12}{'95% CI':>16}{'(equal)':>9}{'ms/dec':>8}")
    for candidate, opponent in pairs:
        r = measure(args.game, args.players, args.games, args.seed, candidate, opponent)
        ci = f"{r.mean_place - r.half_width:.2f}-{r.mean_place + r.half_width:.2f}"
        print(f"{candidate:<12}{opponent:<12}{r.games:>6}{r.wins / r.games:>10.1%}{1 / args.players:>9.1%}"
              f"{r.mean_place:>12.2f}{ci:>16}{r.equal_place:>9.2f}{r.ms_per_decision:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
