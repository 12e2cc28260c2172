"""The stop rule as ``arena run`` applies it: asked after each whole block, checked by simulation.

    python benchmarks/stop_blocks.py --runs 500 --seed 1
    python benchmarks/stop_blocks.py --quick

A tournament with ``[stop] rule = "settled"`` plays its round-robin one repetition at a time (a
block: every table of the field, each under every rotation of its seats on one deal) and asks
:class:`arena.ratings.stop.StopRule` only between blocks; it stops when every neighbouring pair
of the mean-place order is settled, or at the first block end at or past ``max_games``.  This
script plays exactly that schedule (the pairings of :func:`arena.tournament.formats.round_robin`,
grouped by repetition) on fields whose order is known, and measures:

* how often the rule stops with a pair at least delta apart in the wrong order (must be <= alpha);
* the games it used (median, p90), and how often it hit ``max_games``;
* the fixed number of repetitions that orders the field as accurately: the first length at
  which the share of runs whose mean-place order reverses a pair at least delta apart is no more
  than the rule's (and the length from which that holds for good), and the worst-case fixed
  length, the one that keeps that share <= alpha on the field of the same size whose gaps are
  all delta (what a fixed schedule must play when nothing is known of the field).

Fields: synthetic ones (:mod:`arena.ratings.simulate`, 30% of the noise from the deal) with gaps
of 0.5, 0.3 and 0.15 mean places, a near-tie, the bundled bots' measured gaps (shared/facts.md:
Powder Keg neighbours 0.3-0.4 apart; the bundled Reactor
bots at tables of 3 measured 0.55 and 0.9 apart in the real games below), and two fields of real games: whole
matches resampled from in-process games between the bundled Reactor bots (random, heuristic,
strong at tables of 3) and between the four built-in Powder Keg policies (tables of 4).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from arena.games import GameConfig, SeededChance, get_game
from arena.games.policy import make_policy
from arena.games.selfplay import play_game
from arena.ratings import GameOutcome
from arena.ratings.simulate import Field, expected_places, field_for_gaps, pair_gap, play, pool_truth
from arena.ratings.stop import StopRule
from arena.tournament.formats import round_robin

ALPHA = 0.05
DELTA = 0.15
Block = list[GameOutcome]


@dataclass(frozen=True, slots=True)
class Scenario:
    """A field: its stream of blocks per run and the truth to judge the order by."""

    name: str
    seats: int
    blocks: Callable[[int], Iterator[Block]]  # run -> endless stream of blocks (repetitions)
    gap: Callable[[str, str], float]  # true mean of place_b - place_a where both sit (a ahead > 0)
    bots: tuple[str, ...]
    boundary: bool = False  # every gap is delta: the field a fixed length must be sized for

    def reverses_far_pair(self, order: Sequence[str]) -> bool:
        """Whether ``order`` puts some bot above one truly better by at least delta."""
        return any(self.gap(order[j], order[i]) >= DELTA - 1e-9
                   for i in range(len(order)) for j in range(i + 1, len(order)))

    def has_far_pairs(self) -> bool:
        return any(self.gap(a, b) >= DELTA - 1e-9 for a in self.bots for b in self.bots if a != b)


def repetitions(bots: Sequence[str], seats: int, seed: str) -> Iterator[list]:
    """The harness's round-robin pairings, one repetition (block) at a time, without end."""
    chunk = 50
    for start in range(0, 10**9, chunk):
        # round_robin numbers repetitions from 1; ask for a chunk and keep the new ones
        pairings = round_robin(bots, seats, games=start + chunk, seed=seed)
        by_round: dict[int, list] = {}
        for p in pairings:
            if p.round > start:
                by_round.setdefault(p.round, []).append(p)
        for r in sorted(by_round):
            yield by_round[r]


def synthetic(name: str, f: Field, seats: int, seed: int, boundary: bool = False) -> Scenario:
    gaps = {(a, b): pair_gap(f, a, b, seats) for a in f.bots for b in f.bots if a != b}

    def blocks(run: int) -> Iterator[Block]:
        label = f"{seed}:{name}:{run}"
        for block in repetitions(f.bots, seats, label):
            out = []
            for p in block:  # one game per match (as in Reactor); rotations of a table share its deal
                deal_rng = random.Random(f"{label}:{p.deal}")
                deal = [deal_rng.gauss(0.0, 1.0) for _ in range(seats)]
                # the deal's noise belongs to the seat's cards: rotation r moves the bots over it
                out.append(play(f, p.seats, random.Random(f"{label}:{p.id}"), deal, f"{p.deal}|{p.id}"))
            yield out

    return Scenario(name, seats, blocks, lambda a, b: gaps[(a, b)], tuple(f.bots), boundary)


def real_pool(game_name: str, policies: Sequence[str], matches: int, seed: int) -> list[Block]:
    """Real in-process matches at one table of every policy: a random seating and each of its
    rotations on one deal, as a round-robin repetition of that table plays them."""
    game = get_game(game_name)
    config = GameConfig(players=len(policies))
    game.check_config(config)
    pool = []
    for m in range(matches):
        seating = list(policies)
        random.Random(f"{seed}:{game_name}:seating:{m}").shuffle(seating)
        deal = f"{seed}:{game_name}:{m}"
        out = []
        for r in range(len(seating)):
            seats = seating[r:] + seating[:r]
            players = [make_policy(game.name, b, random.Random(f"{deal}:{r}:{s}")) for s, b in enumerate(seats)]
            state = play_game(game.new_game(config, SeededChance(deal)), players)
            out.append(GameOutcome(tuple(seats), tuple(state.result().places), f"{m}|{r}"))
        pool.append(out)
    return pool


def resampled(name: str, pool: list[Block], seed: int) -> tuple[Scenario, dict[str, float]]:
    """Tournaments of one table whose every block is a whole match drawn from the pool."""
    places, gaps = pool_truth(g for block in pool for g in block)

    def blocks(run: int) -> Iterator[Block]:
        rng = random.Random(f"{seed}:{name}:{run}")
        i = 0
        while True:
            i += 1
            yield [GameOutcome(g.bots, g.places, f"d{i}|{g.game_id}") for g in pool[rng.randrange(len(pool))]]

    bots = tuple(sorted(places, key=places.__getitem__))
    return Scenario(name, len(bots), blocks, lambda a, b: gaps[(a, b)], bots), {b: places[b] for b in bots}


def deal_of(outcome: GameOutcome) -> str:
    """The unit of dependence: a table's rotations on one deal."""
    return (outcome.game_id or "").split("|", 1)[0]


@dataclass(slots=True)
class Runs:
    games: list[int] = field(default_factory=list)
    wrong: int = 0  # stopped with a pair at least delta apart in the wrong order
    settled: int = 0  # stopped because every pair was settled (not at max_games)
    at_max: int = 0
    tied: int = 0  # pairs reported tied at the stop
    false_ties: int = 0  # ... although at least delta apart
    near: Counter = field(default_factory=Counter)  # status of pairs inside the zone at the stop
    curves: list[list[bool]] = field(default_factory=list)  # per run, per block: order reverses a far pair
    block_games: int = 0


def run_scenario(sc: Scenario, runs: int, rule: StopRule, horizon: int) -> Runs:
    """``runs`` tournaments; each followed to ``horizon`` games (for the fixed-length curve) and
    at least to its stop."""
    out = Runs()
    for run in range(runs):
        tracker = rule.tracker(deal_of)
        sums: dict[str, list[int]] = {b: [0, 0] for b in sc.bots}
        curve: list[bool] = []
        stopped = False
        games = 0
        for block in sc.blocks(run):
            out.block_games = len(block)
            for g in block:
                tracker.add(g)
                for b, p in zip(g.bots, g.places):
                    sums[b][0] += p
                    sums[b][1] += 1
            games += len(block)
            order = sorted(sc.bots, key=lambda b: (sums[b][0] / sums[b][1], b))
            curve.append(sc.reverses_far_pair(order))
            if not stopped:
                d = tracker.decide()
                if d.stop:
                    stopped = True
                    out.games.append(d.games)
                    out.wrong += sc.reverses_far_pair(d.order)
                    out.at_max += bool(d.unresolved)
                    out.settled += not d.unresolved
                    for p in d.pairs:
                        truth = sc.gap(p.upper, p.lower)
                        out.tied += p.status == "tied"
                        out.false_ties += p.status == "tied" and abs(truth) >= DELTA - 1e-9
                        if abs(truth) < DELTA - 1e-9:
                            out.near[p.status] += 1
            if stopped and games >= horizon:
                break
        out.curves.append(curve)
    return out


def fixed_length(curves: list[list[bool]], target: float) -> tuple[int | None, int | None]:
    """Blocks after which the share of runs whose order reverses a far pair is <= ``target``:
    first reached, and held from then on (None: not within the horizon)."""
    length = min(len(c) for c in curves)
    ok = [sum(c[i] for c in curves) / len(curves) <= target + 1e-12 for i in range(length)]
    first = next((i + 1 for i in range(length) if ok[i]), None)
    held = None
    for i in range(length - 1, -1, -1):
        if not ok[i]:
            break
        held = i + 1
    return first, held


def quantile(xs: list[int], q: float) -> int:
    s = sorted(xs)
    return s[min(int(q * len(s)), len(s) - 1)]


def shown(blocks: tuple[int | None, int | None], per_block: int) -> str:
    first, held = blocks
    if first is None:
        return "beyond the horizon"
    a = first * per_block
    if held == first:
        return f"{a}"
    return f"{a}-{held * per_block}" if held is not None else f"{a}-(beyond)"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500, help="simulated tournaments per field")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-games", type=int, default=3000, help="the rule's budget")
    parser.add_argument("--horizon", type=int, default=1200, help="games each run is followed to, for the fixed lengths")
    parser.add_argument("--reactor-pool", type=int, default=100, help="real Reactor matches (3 games each)")
    parser.add_argument("--keg-pool", type=int, default=2000, help="real Powder Keg matches (4 games each)")
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--only", default="", help="run only the fields whose name contains this")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    runs = min(args.runs, 20) if args.quick else args.runs
    max_games = min(args.max_games, 800) if args.quick else args.max_games
    rpool, kpool = (20, 200) if args.quick else (args.reactor_pool, args.keg_pool)
    command = "python benchmarks/stop_blocks.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(f"command: {command.strip()}")
    print(f"runs per field {runs}, seed {args.seed}, alpha {ALPHA}, delta {DELTA}, max_games {max_games}; "
          "the rule is asked after each whole round-robin repetition")
    started = time.perf_counter()
    rule = StopRule(alpha=ALPHA, delta=DELTA, max_games=max_games)
    s = args.seed
    horizon = min(args.horizon, max_games)

    scenarios: list[Callable[[], Scenario]] = [
        lambda: synthetic("4 bots at 4, gaps 0.5", field_for_gaps([0.5] * 3, 4, deal_share=0.3), 4, s),
        lambda: synthetic("4 bots at 4, gaps 0.3", field_for_gaps([0.3] * 3, 4, deal_share=0.3), 4, s),
        lambda: synthetic("4 bots at 4, gaps 0.15", field_for_gaps([0.15] * 3, 4, deal_share=0.3), 4, s, True),
        lambda: synthetic("4 bots at 4, near-tie 0.5/0.05/0.5", field_for_gaps([0.5, 0.05, 0.5], 4, deal_share=0.3),
                          4, s),
        lambda: synthetic("3 bots at 3, the bundled Reactor bots' gaps 0.55/0.9",
                          field_for_gaps([0.55, 0.9], 3, deal_share=0.3), 3, s),
        lambda: synthetic("3 bots at 3, gaps 0.15", field_for_gaps([0.15] * 2, 3, deal_share=0.3), 3, s, True),
        lambda: synthetic("5 bots at 4, Powder-Keg-like gaps 0.35/0.3/0.4/0.16",
                          field_for_gaps([0.35, 0.3, 0.4, 0.16], 4, deal_share=0.3), 4, s),
        lambda: synthetic("5 bots at 4, gaps 0.15", field_for_gaps([0.15] * 4, 4, deal_share=0.3), 4, s, True),
        lambda: synthetic("heads-up, gap 0.3", field_for_gaps([0.3], 2, deal_share=0.3), 2, s),
        lambda: synthetic("heads-up, gap 0.15", field_for_gaps([0.15], 2, deal_share=0.3), 2, s, True),
    ]
    results: list[tuple[Scenario, Runs]] = []
    print("\nEach field's row is printed as it is done; the worst-case fixed lengths follow at the end.\n")
    print("| field | games a block | runs | wrong order at the stop | settled / at max_games | pairs tied "
          "(falsely) | games median / p90 | same-accuracy fixed length |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")

    def measure(sc: Scenario) -> None:
        t0 = time.perf_counter()
        r = run_scenario(sc, runs, rule, horizon)
        results.append((sc, r))
        rate = r.wrong / runs
        same = shown(fixed_length(r.curves, rate), r.block_games) if sc.has_far_pairs() else "-"
        print(f"| {sc.name} | {r.block_games} | {runs} | {r.wrong} ({rate:.1%}) | {r.settled} / {r.at_max} | "
              f"{r.tied} ({r.false_ties}) | {statistics.median(r.games):g} / {quantile(r.games, 0.9)} | {same} |")
        print(f"  {sc.name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)

    for make in scenarios:
        sc = make()
        if not args.only or args.only in sc.name:
            measure(sc)
    for game, policies, size, name in (("reactor", ("random", "heuristic", "strong"), rpool,
                                        "Reactor bundled bots at 3, real games"),
                                       ("powder-keg", ("random", "heuristic", "counting", "strong"), kpool,
                                        "Powder Keg policies at 4, real games")):
        if args.only and args.only not in name:
            continue
        t0 = time.perf_counter()
        pool = real_pool(game, policies, size, s)
        sc, places = resampled(name, pool, s)
        print(f"  {name}: pool of {size} matches ({time.perf_counter() - t0:.0f} s); mean places "
              + ", ".join(f"{b} {places[b]:.3f}" for b in sc.bots) + "; neighbour gaps "
              + ", ".join(f"{sc.gap(a, b):.3f}" for a, b in zip(sc.bots, sc.bots[1:])), file=sys.stderr)
        measure(sc)

    worst = {(len(sc.bots), sc.seats): (fixed_length(r.curves, ALPHA), r.block_games)
             for sc, r in results if sc.boundary}
    if worst:
        print("\nWorst-case fixed length: the games after which the share of runs whose order reverses a pair at "
              "least delta apart stays <= alpha, on the field of that size whose gaps are all delta:\n")
        print("| bots at seats | fixed length (first reached - held) |")
        print("|---|---:|")
        for (bots, seats), (blocks, per_block) in sorted(worst.items()):
            print(f"| {bots} at {seats} | {shown(blocks, per_block)} |")
    near = [(sc, r) for sc, r in results if sum(r.near.values())]
    if near:
        print("\nPairs inside the zone (closer than delta) at the stop:\n")
        print("| field | pairs | separated (either order) | tied | open (at max_games) |")
        print("|---|---:|---:|---:|---:|")
        for sc, r in near:
            n = sum(r.near.values())
            print(f"| {sc.name} | {n} | {r.near['separated']} | {r.near['tied']} | {r.near['open']} |")
    print(f"\ntotal time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
