"""How far ahead of the random bot the heuristic finishes in tests/test_bundled_bots.py's Powder
Keg tournament (three seats, strong, heuristic and random, 3 rotations of 12 games), over many runs
on fresh deals: the spread that test's margin must allow for.  In-process, with the policies the
bundled bot programs run.

    python benchmarks/bundled_margin.py --runs 300
"""

from __future__ import annotations

import argparse
import random

from bot_strength import GameConfig, SeededChance, get_game, make_policy, play_game

NAMES = ["strong", "heuristic", "random"]


def lead(run: int, games: int = 36) -> float:
    """Random's mean place minus the heuristic's, in one run of ``games`` games."""
    game = get_game("powder-keg")
    config = GameConfig(players=3)
    places: dict[str, list[int]] = {name: [] for name in NAMES}
    for g in range(games):
        seating = NAMES[g % 3:] + NAMES[:g % 3]
        deal = f"run{run}:{g}"
        policies = [make_policy(game.name, name, random.Random(f"{deal}:{s}")) for s, name in enumerate(seating)]
        result = play_game(game.new_game(config, SeededChance(deal)), policies).result()
        for s, name in enumerate(seating):
            places[name].append(result.places[s])
    mean = {name: sum(p) / len(p) for name, p in places.items()}
    return mean["random"] - mean["heuristic"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    leads = sorted(lead(r) for r in range(args.runs))
    print(f"{args.runs} runs: the heuristic's lead over random in mean place: mean {sum(leads) / len(leads):.2f},"
          f" lowest {leads[0]:.2f}, 1st percentile {leads[int(0.01 * (len(leads) - 1))]:.2f}")
    for margin in (0.0, 0.1, 0.3, 0.5):
        print(f"  a margin of {margin}: fails {sum(x <= margin for x in leads)} of {args.runs}")


if __name__ == "__main__":
    main()
