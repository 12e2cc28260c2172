"""Print in-process random-playout speed per game and table size (median of several runs).

    python benchmarks/engine_speed.py [--games 200] [--repeats 5]

A benchmark, not a test: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse

from arena.bench import engine_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per run")
    parser.add_argument("--repeats", type=int, default=5, help="runs; the median is printed")
    args = parser.parse_args()
    print(f"{'game':<12}{'seats':>6}{'games/s':>10}{'decisions/s':>14}{'decisions/game':>16}")
    for row in engine_table(games=args.games, repeats=args.repeats):
        print(f"{row.game:<12}{row.players:>6}{row.games_per_s:>10.0f}{row.decisions_per_s:>14.0f}{row.decisions_per_game:>16.1f}")


if __name__ == "__main__":
    main()
