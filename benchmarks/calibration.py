"""Check the confidence claims and the stop rule by simulation, on fields whose order is known.

    python benchmarks/calibration.py --runs 200 --seed 1
    python benchmarks/calibration.py --quick

Each run is one round-robin stream of games at tables of 4 (heads-up: 2), played match by match
(a match: every rotation of one seating, one deal).  Fields are synthetic (``arena.ratings.simulate``,
Thurstonian, 30% of the noise from the deal, so games of a match are dependent) except the last,
which resamples whole matches of real in-process Powder Keg games between the four built-in
policies; the truth there is the pool of real games itself.  The same streams give:

1. Confidence claims at fixed lengths: at 24, 100 and 400 games, the neighbours of the mean-place
   order (what a leaderboard shows) get ``p_upper_better`` and a separated/tied status; a claim is
   right when the upper bot is truly better.  Coverage: whether the 95% interval of each true
   neighbouring pair holds its true mean place difference; rank coverage: whether each bot's true
   rank is inside its rank range.
2. The stop rule (alpha 0.05, delta 0.15), asked after every match: how often a settled pair is in
   the wrong order, the games used, and the fixed length at which ordering by mean place is as
   accurate (the first length at which the share of runs whose order reverses a pair at least
   delta apart is no more than the rule's).
3. Pairs inside the zone: how the rule reports them.
"""

from __future__ import annotations

import argparse
import itertools
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
from arena.ratings.confidence import ranking_confidence
from arena.ratings.simulate import Field, expected_places, field_for_gaps, iter_games, match_of, pair_gap, pool_truth
from arena.ratings.stop import StopRule

ALPHA = 0.05
DELTA = 0.15
POOL_POLICIES = ("random", "heuristic", "counting", "strong")


@dataclass(frozen=True, slots=True)
class Scenario:
    """A field to simulate: its game stream per run and the truth to judge claims by."""

    name: str
    seats: int
    games: Callable[[int], Iterator[GameOutcome]]  # run -> endless stream, whole matches in a row
    gap: Callable[[str, str], float]  # true mean of place_b - place_a where both sit (a ahead > 0)
    true_rank: dict[str, int]
    horizon: int  # games to follow each run for the fixed-length comparison
    max_games: int  # the stop rule's budget
    boundary: bool = False  # every gap is delta: the hardest field a fixed length must serve
    judge: bool = True  # has a true order to judge confidence claims by (not a field of equals)

    def has_far_pairs(self) -> bool:
        """Whether some pair is at least delta apart (else no order can be wrong)."""
        return any(self.gap(a, b) >= DELTA - 1e-9 for a in self.true_rank for b in self.true_rank if a != b)


def synthetic(name: str, f: Field, seats: int, seed: int, horizon: int, max_games: int,
              boundary: bool = False, judge: bool = True) -> Scenario:
    """A scenario from a simulated field."""
    places = expected_places(f, seats)
    rank = {b: i for i, b in enumerate(sorted(f.bots, key=lambda b: places[b]), start=1)}
    gaps = {(a, b): pair_gap(f, a, b, seats) for a in f.bots for b in f.bots if a != b}
    return Scenario(name, seats, lambda run: iter_games(f, seats, f"{seed}:{name}:{run}"),
                    lambda a, b: gaps[(a, b)], rank, horizon, max_games, boundary, judge)


def powder_keg_pool(matches: int, seed: int) -> list[list[GameOutcome]]:
    """Real in-process Powder Keg matches between the four built-in policies at one table of 4:
    each match a random seating and its four rotations on one deal, as a round-robin plays them."""
    game = get_game("powder-keg")
    config = GameConfig(players=4)
    game.check_config(config)
    pool = []
    for m in range(matches):
        seating = list(POOL_POLICIES)
        random.Random(f"{seed}:pk:seating:{m}").shuffle(seating)
        deal = f"{seed}:pk:{m}"
        out = []
        for r in range(4):
            seats = seating[r:] + seating[:r]
            policies = [make_policy(game.name, b, random.Random(f"{deal}:{r}:{s}")) for s, b in enumerate(seats)]
            state = play_game(game.new_game(config, SeededChance(deal)), policies)
            out.append(GameOutcome(tuple(seats), tuple(state.result().places), f"{m}:{r}"))
        pool.append(out)
    return pool


def resampled(name: str, pool: list[list[GameOutcome]], seed: int, horizon: int, max_games: int) -> Scenario:
    """A scenario whose tournaments draw whole matches from the pool, with replacement."""
    places, gaps = pool_truth(g for match in pool for g in match)
    rank = {b: i for i, b in enumerate(sorted(places, key=lambda b: places[b]), start=1)}

    def games(run: int) -> Iterator[GameOutcome]:
        rng = random.Random(f"{seed}:{name}:{run}")
        for i in itertools.count():
            for g in pool[rng.randrange(len(pool))]:
                yield GameOutcome(g.bots, g.places, f"d{i}:{g.game_id.rsplit(':', 1)[1]}")

    return Scenario(name, 4, games, lambda a, b: gaps[(a, b)], rank, horizon, max_games)


# --- measuring ------------------------------------------------------------------------------------

@dataclass(slots=True)
class Claims:
    """Tallies of the fixed-length confidence claims."""

    tournaments: int = 0
    pairs: int = 0
    sure: int = 0  # p_upper_better >= 0.95
    sure_right: int = 0
    separated: int = 0
    separated_right: int = 0
    false_ties: int = 0  # tied although at least delta apart
    far_pairs: int = 0  # neighbours at least delta apart (where a tie is false)
    covered: int = 0
    intervals: int = 0
    boot_covered: int = 0
    boot_intervals: int = 0
    ranks_covered: int = 0
    ranks: int = 0
    bins: Counter = field(default_factory=Counter)  # (bin, right) -> count

    def add(self, other: Claims) -> None:
        for name in ("tournaments", "pairs", "sure", "sure_right", "separated", "separated_right", "false_ties",
                     "far_pairs", "covered", "intervals", "boot_covered", "boot_intervals", "ranks_covered", "ranks"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.bins.update(other.bins)


BINS = ((0.5, 0.8), (0.8, 0.95), (0.95, 0.99), (0.99, 1.01))


def mean_place_order(sums: dict[str, list[int]]) -> list[str]:
    return sorted(sums, key=lambda b: (sums[b][0] / sums[b][1], b))


def judge_claims(sc: Scenario, games: list[GameOutcome], order: list[str], run: int, c: Claims,
                 bootstrap: bool, rank_resamples: int) -> None:
    """Tally the claims of one tournament of ``len(games)`` games."""
    c.tournaments += 1
    rk = ranking_confidence(games, order, match_of=match_of, alpha=ALPHA, delta=DELTA, resamples=rank_resamples,
                            seed=run, rank_ranges=rank_resamples > 0)
    for nb in rk.neighbours:
        truth = sc.gap(nb.upper, nb.lower)
        right = truth > 0
        c.pairs += 1
        if nb.p_upper_better >= 0.95:
            c.sure += 1
            c.sure_right += right
        if nb.separated:
            c.separated += 1
            c.separated_right += right
        if abs(truth) >= DELTA - 1e-9:
            c.far_pairs += 1
            c.false_ties += nb.status == "tied"
        for lo, hi in BINS:
            if lo <= nb.p_upper_better < hi:
                c.bins[(lo, right)] += 1
    if rank_resamples > 0:
        for line in rk.bots:
            c.ranks += 1
            c.ranks_covered += line.rank_low <= sc.true_rank[line.bot] <= line.rank_high
    true_order = sorted(sc.true_rank, key=lambda b: sc.true_rank[b])
    for method in ("normal", "bootstrap") if bootstrap else ("normal",):
        truth_rk = ranking_confidence(games, true_order, match_of=match_of, alpha=ALPHA, delta=DELTA,
                                      method=method, resamples=500, seed=run, rank_ranges=False)
        for nb in truth_rk.neighbours:
            if nb.low is None:
                continue
            inside = nb.low <= sc.gap(nb.upper, nb.lower) <= nb.high
            if method == "normal":
                c.intervals += 1
                c.covered += inside
            else:
                c.boot_intervals += 1
                c.boot_covered += inside


@dataclass(slots=True)
class StopRuns:
    """Outcomes of the stop rule over the runs of one scenario."""

    games: list[int] = field(default_factory=list)
    settled: int = 0
    wrong_runs: int = 0  # a separated neighbour truly behind by at least delta
    separated: int = 0
    separated_wrong: int = 0  # separated neighbours truly behind, by any amount
    false_ties: int = 0
    order_wrong: int = 0  # the final order reverses some pair at least delta apart
    near: Counter = field(default_factory=Counter)  # status of pairs inside the zone at the stop


def order_reverses_far_pair(sc: Scenario, order: Sequence[str]) -> bool:
    """Whether ``order`` puts some bot above one that is truly better by at least delta."""
    return any(sc.gap(order[j], order[i]) >= DELTA - 1e-9 for i in range(len(order)) for j in range(i + 1, len(order)))


def run_scenario(sc: Scenario, runs: int, lengths: Sequence[int], rule: StopRule, *, bootstrap: bool,
                 rank_resamples: int, judge: bool = True) -> tuple[dict[int, Claims], StopRuns, list[list[bool]]]:
    """Play ``runs`` streams; return the claims per length, the stop outcomes, and per run the
    per-game 'mean-place order reverses a far pair' flags (for the fixed-length comparison)."""
    claims = {n: Claims() for n in lengths}
    stops = StopRuns()
    curves: list[list[bool]] = []
    bots = list(sc.true_rank)
    for run in range(runs):
        tracker = rule.tracker(match_of)
        stream = sc.games(run)
        games: list[GameOutcome] = []
        sums = {b: [0, 0] for b in bots}
        curve: list[bool] = []
        decided = None
        limit = max(sc.horizon, max(lengths) if judge else 0)
        while True:
            first = next(stream)
            block = [first] + [next(stream) for _ in range(sc.seats - 1)]
            for g in block:
                games.append(g)
                tracker.add(g)
                for b, p in zip(g.bots, g.places):
                    sums[b][0] += p
                    sums[b][1] += 1
            if all(v[1] for v in sums.values()):
                order = mean_place_order(sums)
                curve.append(order_reverses_far_pair(sc, order))
            else:  # no order yet: as wrong as an order can be
                order = bots
                curve.append(True)
            n = len(games)
            if judge and n in claims:
                judge_claims(sc, games, order, run, claims[n], bootstrap, rank_resamples)
            if decided is None:
                d = tracker.decide()
                if d.stop:
                    decided = d
                    record_stop(sc, d, stops)
            if decided is not None and n >= limit:
                break
        curves.append(curve)
    return claims, stops, curves


def record_stop(sc: Scenario, d, stops: StopRuns) -> None:
    stops.games.append(d.games)
    stops.settled += not d.unresolved
    wrong_far = False
    for p in d.pairs:
        truth = sc.gap(p.upper, p.lower)
        if p.status == "separated":
            stops.separated += 1
            stops.separated_wrong += truth < 0
            wrong_far |= truth <= -DELTA + 1e-9
        if p.status == "tied" and abs(truth) >= DELTA - 1e-9:
            stops.false_ties += 1
        if abs(truth) < DELTA - 1e-9:
            stops.near[p.status] += 1
            if p.status == "separated" and abs(truth) > 1e-12:
                stops.near["unequal"] += 1
                stops.near["wrong"] += truth < 0
    stops.wrong_runs += wrong_far
    stops.order_wrong += order_reverses_far_pair(sc, d.order)


def fixed_length_for(curves: list[list[bool]], target: float, seats: int) -> tuple[int | None, int | None]:
    """Fixed lengths (games) at which ordering by mean place is as accurate as ``target``: the share
    of runs whose order reverses a pair at least delta apart is <= target first at one length, and
    at every length from the other on.  The truth is between: the first is lucky, the second unlucky."""
    length = min(len(c) for c in curves)
    rates = [sum(c[i] for c in curves) / len(curves) for i in range(length)]
    ok = [r <= target + 1e-12 for r in rates]
    first = next(((i + 1) * seats for i in range(length) if ok[i]), None)
    held = None
    for i in range(length - 1, -1, -1):
        if not ok[i]:
            break
        held = (i + 1) * seats
    return first, held


# --- printing -------------------------------------------------------------------------------------

def pct(a: int, b: int) -> str:
    return f"{a / b:.1%}" if b else "-"


def print_claims(rows: list[tuple[str, int, Claims]], total: Claims, bootstrap_rows: list[tuple[str, int, Claims]]) -> None:
    print("\n## 1. Confidence claims at fixed lengths (95% level, neighbours in the mean-place order)\n")
    print("| field | games | tournaments | p>=0.95 claims | right | separated | right | false ties | "
          "interval coverage | rank coverage |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, n, c in rows + [("**all**", 0, total)]:
        print(f"| {name} | {n or 'all'} | {c.tournaments} | {c.sure} | {pct(c.sure_right, c.sure)} | {c.separated} | "
              f"{pct(c.separated_right, c.separated)} | {c.false_ties}/{c.far_pairs} | {pct(c.covered, c.intervals)} | "
              f"{pct(c.ranks_covered, c.ranks)} |")
    print("\nReliability of p_upper_better, all fields and lengths:\n")
    print("| p_upper_better | pairs | upper truly better |")
    print("|---|---:|---:|")
    for lo, hi in BINS:
        right, wrong = total.bins[(lo, True)], total.bins[(lo, False)]
        print(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {right + wrong} | {pct(right, right + wrong)} |")
    if bootstrap_rows:
        print("\nCoverage of the 95% interval of true neighbours: cluster-robust t (used) against a percentile "
              "bootstrap over matches (500 draws):\n")
        print("| field | games | t interval | bootstrap |")
        print("|---|---:|---:|---:|")
        for name, n, c in bootstrap_rows:
            print(f"| {name} | {n} | {pct(c.covered, c.intervals)} | {pct(c.boot_covered, c.boot_intervals)} |")


def quantile(xs: list[int], q: float) -> int:
    s = sorted(xs)
    return s[min(int(q * len(s)), len(s) - 1)]


def span(lengths: tuple[int | None, int | None], horizon: int) -> str:
    first, held = lengths
    if first is None:
        return f"> {horizon}"
    return f"{first}" if held == first else f"{first}-{held if held is not None else f'>{horizon}'}"


def saving(median: float, lengths: tuple[int | None, int | None]) -> str:
    """How many fewer games the rule's median uses than the fixed length (its lucky-unlucky span)."""
    first, held = lengths
    if first is None:
        return "-"
    a = 1 - median / first
    b = 1 - median / held if held is not None else None
    word = lambda x: f"{x:.0%}" if x >= 0 else f"{x:.0%}"  # noqa: E731
    return word(a) if b is None or abs(a - b) < 0.005 else f"{word(a)} to {word(b)}"


def print_stops(title: str, rows: list[tuple[Scenario, StopRuns, list[list[bool]]]], runs: int,
                boundary: dict[tuple[int, int], tuple[int | None, int | None]]) -> None:
    print(f"\n## {title}\n")
    print("Fixed lengths are given as first reached - held from then on (games).  'Oracle' is the fixed length "
          "that is as accurate on this very field; 'worst case' the one that keeps the wrong-order rate <= alpha "
          "on the field of the same size whose gaps are all delta, which is what a fixed schedule must be for every "
          "field with gaps >= delta.  Savings are 1 - (rule's median / fixed length); negative: the rule uses more.\n")
    print("| field | runs | settled | wrong runs (gap >= delta) | wrong pairs (any gap) / separated | false ties | "
          "games median | p90 | order wrong at stop | oracle fixed length | saving | worst-case fixed length | saving |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for sc, s, curves in rows:
        rate = s.order_wrong / runs
        same = fixed_length_for(curves, rate, sc.seats)
        horizon = min(len(c) for c in curves) * sc.seats
        med = statistics.median(s.games)
        worst = boundary.get((len(sc.true_rank), sc.seats), (None, None))
        fixed = (f"{span(same, horizon)} | {saving(med, same)} | {span(worst, horizon)} | {saving(med, worst)}"
                 if sc.has_far_pairs() else "- | - | - | -")
        print(f"| {sc.name} | {runs} | {s.settled} | {s.wrong_runs} ({pct(s.wrong_runs, runs)}) | "
              f"{s.separated_wrong}/{s.separated} | {s.false_ties} | {med:g} | {quantile(s.games, 0.9)} | "
              f"{s.order_wrong} ({pct(s.order_wrong, runs)}) | {fixed} |")


def print_near(rows: list[tuple[Scenario, StopRuns, list[list[bool]]]], title: str) -> None:
    print(f"\n## {title}\n")
    print("| field | neighbour pairs inside the zone at the stop | tied | ordered | of those, the wrong way | open "
          "| games at the stop, median |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for sc, s, _ in rows:
        total = s.near["tied"] + s.near["separated"] + s.near["open"]
        if total:
            wrong = pct(s.near["wrong"], s.near["unequal"]) if s.near["unequal"] else "- (equal bots)"
            print(f"| {sc.name} | {total} | {pct(s.near['tied'], total)} | {pct(s.near['separated'], total)} | "
                  f"{wrong} | {pct(s.near['open'], total)} | {statistics.median(s.games):g} |")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="simulated tournaments per field")
    parser.add_argument("--seed", type=int, default=1, help="root seed of every stream")
    parser.add_argument("--quick", action="store_true", help="a smoke run: few runs, short horizons")
    parser.add_argument("--pool", type=int, default=2500, help="real Powder Keg matches in the resampled pool")
    parser.add_argument("--three-way", action="store_true", help="also run the three-way rule on two fields")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    runs, pool_size = (min(args.runs, 20), min(args.pool, 200)) if args.quick else (args.runs, args.pool)
    scale = 0.25 if args.quick else 1.0
    lengths = (24, 100) if args.quick else (24, 100, 400)
    max_games = int(4000 * scale)
    rank_resamples = 200
    command = "python benchmarks/calibration.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(f"command: {command.strip()}")
    print(f"runs per field {runs}, seed {args.seed}, alpha {ALPHA}, delta {DELTA}, stop budget {max_games} games")
    started = time.perf_counter()

    pool = powder_keg_pool(pool_size, args.seed)
    places, _ = pool_truth(g for match in pool for g in match)
    pk_order = sorted(places, key=lambda b: places[b])
    pk_gaps = [places[b] - places[a] for a, b in zip(pk_order, pk_order[1:])]
    print(f"Powder Keg pool: {pool_size} real matches ({4 * pool_size} games, {time.perf_counter() - started:.0f} s); "
          "mean places " + ", ".join(f"{b} {places[b]:.3f}" for b in pk_order))

    h = lambda n: max(int(n * scale), 100)  # noqa: E731
    s = args.seed
    scenarios = [
        synthetic("4 bots, gaps 0.5", field_for_gaps([0.5] * 3, 4, deal_share=0.3), 4, s, h(600), max_games),
        synthetic("4 bots, gaps 0.3", field_for_gaps([0.3] * 3, 4, deal_share=0.3), 4, s, h(1500), max_games),
        synthetic("4 bots, gaps 0.15", field_for_gaps([0.15] * 3, 4, deal_share=0.3), 4, s, h(3000), max_games,
                  boundary=True),
        synthetic("4 bots, gaps 0.5/0.35/0.16", field_for_gaps([0.5, 0.35, 0.16], 4, deal_share=0.3), 4, s,
                  h(3000), max_games),
        synthetic("6 bots at 4, gaps 0.3", field_for_gaps([0.3] * 5, 4, deal_share=0.3), 4, s, h(2000), max_games),
        synthetic("6 bots at 4, gaps 0.15", field_for_gaps([0.15] * 5, 4, deal_share=0.3), 4, s, h(4000), max_games,
                  boundary=True),
        synthetic("heads-up, gap 0.15", field_for_gaps([0.15], 2, deal_share=0.3), 2, s, h(1500), max_games,
                  boundary=True),
        synthetic("4 bots, near-tie 0.5/0.05/0.5", field_for_gaps([0.5, 0.05, 0.5], 4, deal_share=0.3), 4, s,
                  h(600), max_games),
        synthetic("Powder Keg gaps, synthetic", field_for_gaps(pk_gaps, 4, names=pk_order, deal_share=0.3), 4, s,
                  h(3000), max_games),
        resampled("Powder Keg real games", pool, s, h(3000), max_games),
        synthetic("4 bots, all equal", field_for_gaps([0.0] * 3, 4, deal_share=0.3), 4, s, 100, max_games,
                  judge=False),
        synthetic("heads-up, equal", field_for_gaps([0.0], 2, deal_share=0.3), 2, s, 100, max_games, judge=False),
    ]
    print("Powder Keg gaps used: " + ", ".join(f"{g:.3f}" for g in pk_gaps))
    rule = StopRule(alpha=ALPHA, delta=DELTA, max_games=max_games)
    claim_rows, boot_rows, stop_rows = [], [], []
    total = Claims()
    for i, sc in enumerate(scenarios):
        t0 = time.perf_counter()
        claims, stops, curves = run_scenario(sc, runs, lengths, rule, bootstrap=i in (0, 4, 9),
                                             rank_resamples=rank_resamples, judge=sc.judge)
        for n, c in claims.items():
            if not c.tournaments:
                continue
            claim_rows.append((sc.name, n, c))
            total.add(c)
            if c.boot_intervals:
                boot_rows.append((sc.name, n, c))
        stop_rows.append((sc, stops, curves))
        print(f"  {sc.name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    print_claims(claim_rows, total, boot_rows)
    boundary = {(len(sc.true_rank), sc.seats): fixed_length_for(curves, ALPHA, sc.seats)
                for sc, _, curves in stop_rows if sc.boundary}
    print_stops(f"2. Stop rule, two-way (alpha {ALPHA}, delta {DELTA}, asked after every match, budget {max_games})",
                stop_rows, runs, boundary)
    print_near(stop_rows, "3. Pairs inside the zone, two-way rule")
    if args.three_way:
        three = StopRule(alpha=ALPHA, delta=DELTA, max_games=max_games, three_way=True)
        rows = []
        for sc in (scenarios[3], scenarios[7], scenarios[11]):
            _, stops, curves = run_scenario(sc, runs, lengths, three, bootstrap=False, rank_resamples=0, judge=False)
            rows.append((sc, stops, curves))
        print_stops("4. Stop rule, three-way (may conclude tied)", rows, runs, boundary)
        print_near(rows, "5. Pairs inside the zone, three-way rule")
    print(f"\ntotal time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
