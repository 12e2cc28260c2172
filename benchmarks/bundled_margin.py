"""How far ahead the bundled bots finish of the one below them in tests/test_bundled_bots.py's
tournaments (three seats, strong, heuristic and random, ``--games`` games in all, seated in
rotation), over many runs on fresh deals: the spread that test's margins must allow for.
In-process, with the policies the bundled bot programs run, on ``--jobs`` processes.

    python benchmarks/bundled_margin.py --runs 300 [--games 36] [--game powder-keg] [--jobs 2]
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import random

from bot_strength import GameConfig, SeededChance, get_game, make_policy, play_game

from arena.ratings import GameOutcome, make_env, rate

NAMES = ["strong", "heuristic", "random"]


Leads = tuple[float, float, float]


def leads(run: int, games: tuple[int, ...] = (36,), game_name: str = "powder-keg") -> list[Leads]:
    """Random's mean place minus the heuristic's, the heuristic's minus the strong bot's, and the
    strong bot's conservative TrueSkill score minus the heuristic's (the leaderboard's order), in
    one run, after each count of ``games`` (a run of 72 games begins with the run of 36)."""
    game = get_game(game_name)
    config = GameConfig(players=3)
    outcomes: list[GameOutcome] = []
    found: list[Leads] = []
    for g in range(max(games)):
        seating = NAMES[g % 3:] + NAMES[:g % 3]
        deal = f"run{run}:{g}"
        policies = [make_policy(game.name, name, random.Random(f"{deal}:{s}")) for s, name in enumerate(seating)]
        result = play_game(game.new_game(config, SeededChance(deal)), policies).result()
        outcomes.append(GameOutcome(tuple(seating), tuple(result.places)))
        if g + 1 in games:
            found.append(_leads(outcomes))
    return found


def _leads(outcomes: list[GameOutcome]) -> Leads:
    places: dict[str, list[int]] = {name: [] for name in NAMES}
    for outcome in outcomes:
        for name, place in zip(outcome.bots, outcome.places):
            places[name].append(place)
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
    parser.add_argument("--games", default="36", help="games in a run; several, as 36,72, report each")
    parser.add_argument("--game", default="powder-keg", choices=["reactor", "powder-keg"])
    parser.add_argument("--jobs", type=int, default=1, help="processes to play the runs on")
    args = parser.parse_args()
    counts = tuple(sorted(int(n) for n in args.games.split(",")))
    run = functools.partial(leads, games=counts, game_name=args.game)
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(run, range(args.runs), chunksize=1)
    else:
        results = [run(r) for r in range(args.runs)]
    for i, count in enumerate(counts):
        print(f"{args.runs} runs of {count} games of {args.game}")
        report("the heuristic's lead over random in mean place", [r[i][0] for r in results], args.runs)
        report("the strong bot's lead over the heuristic in mean place", [r[i][1] for r in results], args.runs)
        report("the strong bot's lead over the heuristic in conservative rating", [r[i][2] for r in results], args.runs)


if __name__ == "__main__":
    main()
