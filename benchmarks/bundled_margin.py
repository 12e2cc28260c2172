"""How far ahead the bundled bots finish of the one below them in tests/test_bundled_bots.py's
Powder Keg tournament (three seats, strong, heuristic and random, 3 rotations of ``--games``
games), over many runs on fresh deals: the spread that test's margins must allow for.  In-process,
with the policies the bundled bot programs run.

    python benchmarks/bundled_margin.py --runs 300 [--games 36]
"""

from __future__ import annotations

import argparse
import random

from bot_strength import GameConfig, SeededChance, get_game, make_policy, play_game

from arena.ratings import GameOutcome, make_env, rate

NAMES = ["strong", "heuristic", "random"]


def leads(run: int, games: int = 36) -> tuple[float, float, float]:
    """Random's mean place minus the heuristic's, the heuristic's minus the strong bot's, and the
    strong bot's conservative TrueSkill score minus the heuristic's (the leaderboard's order), in
    one run of ``games`` games."""
    game = get_game("powder-keg")
    config = GameConfig(players=3)
    places: dict[str, list[int]] = {name: [] for name in NAMES}
    outcomes = []
    for g in range(games):
        seating = NAMES[g % 3:] + NAMES[:g % 3]
        deal = f"run{run}:{g}"
        policies = [make_policy(game.name, name, random.Random(f"{deal}:{s}")) for s, name in enumerate(seating)]
        result = play_game(game.new_game(config, SeededChance(deal)), policies).result()
        for s, name in enumerate(seating):
            places[name].append(result.places[s])
        outcomes.append(GameOutcome(tuple(seating), tuple(result.places)))
    table = rate(outcomes, make_env())
    mean = {name: sum(p) / len(p) for name, p in places.items()}
    return (mean["random"] - mean["heuristic"], mean["heuristic"] - mean["strong"],
            table.score("strong") - table.score("heuristic"))


def report(what: str, values: list[float], runs: int) -> None:
    values = sorted(values)
    print(f"{what}: mean {sum(values) / len(values):.2f}, lowest {values[0]:.2f},"
          f" 1st percentile {values[int(0.01 * (len(values) - 1))]:.2f}")
    for margin in (0.0, 0.1, 0.3, 0.5):
        print(f"  a margin of {margin}: fails {sum(x <= margin for x in values)} of {runs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--games", type=int, default=36)
    args = parser.parse_args()
    results = [leads(r, args.games) for r in range(args.runs)]
    print(f"{args.runs} runs of {args.games} games")
    report("the heuristic's lead over random in mean place", [r[0] for r in results], args.runs)
    report("the strong bot's lead over the heuristic in mean place", [r[1] for r in results], args.runs)
    report("the strong bot's lead over the heuristic in conservative rating", [r[2] for r in results], args.runs)


if __name__ == "__main__":
    main()
