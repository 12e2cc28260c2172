"""Synthetic fields of known strength, for the tests and benchmarks of the confidence and stop rules.

A field is a set of bots with a hidden strength each.  One game is Thurstonian: each seat's
performance is ``strength + seat effect + noise`` and the seats finish in order of performance
(1 = best).  The noise has standard deviation ``noise``; a share ``deal_share`` of its variance is
the deal's, drawn once per match and per seat, so the rotations of one match (which move the bots
through the seats of the same deal) are dependent, as they are in a round-robin with duplicate
deals.  Everything is seeded through ``random.Random`` with string seeds, so a seed gives the same
games on every run.

Because the performance differences of two seats are Gaussian whatever the deal share, the
chance that one bot finishes ahead of another is a normal probability, and a bot's mean place
(1 + the chances that each tablemate finishes ahead of it) is exact: :func:`expected_places` and
:func:`pair_gap` compute the truth a benchmark checks claims against, and
:func:`monte_carlo_places` estimates the same by playing, as a check on both.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.ratings import GameOutcome

_PHI = NormalDist().cdf


@dataclass(frozen=True, slots=True)
class Field:
    """Bots with a known strength each, and the game model they play (see the module docstring)."""

    bots: tuple[str, ...]
    strengths: tuple[float, ...]
    noise: float = 1.0
    deal_share: float = 0.0  # share of the noise variance that comes with the seat's deal
    seat_effects: tuple[float, ...] = ()  # added to the performance of seat 0, 1, ...; missing = 0

    def __post_init__(self) -> None:
        if len(self.bots) != len(self.strengths) or len(set(self.bots)) != len(self.bots):
            raise ValueError("a field needs one strength per bot and unique bot names")
        if self.noise <= 0 or not 0.0 <= self.deal_share <= 1.0:
            raise ValueError("noise must be positive and deal_share between 0 and 1")

    def strength(self, bot: str) -> float:
        """The bot's hidden strength."""
        return self.strengths[self.bots.index(bot)]

    def seat_effect(self, seat: int) -> float:
        """What sitting in ``seat`` adds to a performance (0 where none is given)."""
        return self.seat_effects[seat] if seat < len(self.seat_effects) else 0.0

    def order(self) -> tuple[str, ...]:
        """The bots from strongest to weakest: the true order (name breaks equal strengths)."""
        return tuple(sorted(self.bots, key=lambda b: (-self.strength(b), b)))


def make_field(strengths: Mapping[str, float], *, noise: float = 1.0, deal_share: float = 0.0,
               seat_effects: Sequence[float] = ()) -> Field:
    """A :class:`Field` from ``{bot: strength}``."""
    bots = tuple(strengths)
    return Field(bots, tuple(float(strengths[b]) for b in bots), noise, deal_share, tuple(seat_effects))


def play(field: Field, seats: Sequence[str], rng: random.Random, deal: Sequence[float] | None = None,
         game_id: str | None = None) -> GameOutcome:
    """One game: ``seats`` are bot names in seat order; ``deal`` is the match's noise per seat."""
    fresh = field.noise * math.sqrt(1.0 - field.deal_share)
    shared = field.noise * math.sqrt(field.deal_share)
    perf = []
    for s, bot in enumerate(seats):
        p = field.strength(bot) + field.seat_effect(s) + fresh * rng.gauss(0.0, 1.0)
        if deal is not None:
            p += shared * deal[s]
        perf.append(p)
    # Sorting the seats by performance; equal performances (measure zero) would tie by seat.
    ranked = sorted(range(len(seats)), key=lambda s: -perf[s])
    places = [0] * len(seats)
    for place, s in enumerate(ranked, start=1):
        places[s] = place
    return GameOutcome(tuple(seats), tuple(places), game_id)


def tables(bots: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """Every combination of ``seats`` bots (sorted): the tables of a round-robin."""
    if not 2 <= seats <= len(bots):
        raise ValueError(f"tables of {seats} need 2 to {len(bots)} seats")
    return list(itertools.combinations(sorted(bots), seats))


def iter_matches(bots: Sequence[str], seats: int, seed: int | str,
                 rotations: bool = True) -> Iterator[tuple[str, list[tuple[str, ...]]]]:
    """An endless round-robin: ``(match id, seatings)``, one match per table, all tables per cycle.

    Each cycle visits every table once in a shuffled order; a match seats the table in a random
    order and then (with ``rotations``) plays every cyclic rotation of it, so each bot sits in
    every seat once per match, with the same deal: what the harness's round-robin does.
    """
    combos = tables(bots, seats)
    for cycle in itertools.count():
        rng = random.Random(f"{seed}:cycle:{cycle}")
        order = combos[:]
        rng.shuffle(order)
        for t, combo in enumerate(order):
            seating = list(combo)
            rng.shuffle(seating)
            rots = range(seats) if rotations else range(1)
            yield f"c{cycle}t{t}", [tuple(seating[r:] + seating[:r]) for r in rots]


def iter_games(field: Field, seats: int, seed: int | str, rotations: bool = True) -> Iterator[GameOutcome]:
    """An endless stream of the field's round-robin games; ids are ``"<match>:<rotation>"``."""
    for match, seatings in iter_matches(field.bots, seats, seed, rotations):
        rng = random.Random(f"{seed}:{match}")
        deal = [rng.gauss(0.0, 1.0) for _ in range(seats)]
        for r, seating in enumerate(seatings):
            yield play(field, seating, rng, deal, f"{match}:{r}")


def tournament(field: Field, seats: int, games: int, seed: int | str, rotations: bool = True) -> list[GameOutcome]:
    """The first ``games`` games of :func:`iter_games` (the last match may be cut short)."""
    return list(itertools.islice(iter_games(field, seats, seed, rotations), games))


def match_of(outcome: GameOutcome) -> str:
    """The match of a simulated game (its id without the rotation): the unit to resample."""
    return (outcome.game_id or "").rsplit(":", 1)[0]


def _ahead(field: Field, a: str, b: str, seats: int) -> float:
    """Chance that ``a`` finishes ahead of ``b`` at one table, seats drawn at random."""
    diff = field.strength(a) - field.strength(b)
    scale = field.noise * math.sqrt(2.0)
    if not any(field.seat_effects):
        return _PHI(diff / scale)
    pairs = [(i, j) for i in range(seats) for j in range(seats) if i != j]
    return sum(_PHI((diff + field.seat_effect(i) - field.seat_effect(j)) / scale) for i, j in pairs) / len(pairs)


def table_places(field: Field, table: Sequence[str]) -> dict[str, float]:
    """Exact mean place of each bot at this table, over a random seating (as rotations give)."""
    n = len(table)
    return {b: 1.0 + sum(_ahead(field, o, b, n) for o in table if o != b) for b in table}


def expected_places(field: Field, seats: int) -> dict[str, float]:
    """Exact mean place of each bot over the round-robin's tables (each table equally often)."""
    totals = dict.fromkeys(field.bots, 0.0)
    counts = dict.fromkeys(field.bots, 0)
    for table in tables(field.bots, seats):
        for bot, place in table_places(field, table).items():
            totals[bot] += place
            counts[bot] += 1
    return {b: totals[b] / counts[b] for b in field.bots}


def pair_gap(field: Field, a: str, b: str, seats: int) -> float:
    """Exact mean of place_b - place_a over the tables where both sit (positive: ``a`` is ahead)."""
    shared = [t for t in tables(field.bots, seats) if a in t and b in t]
    gaps = [(p := table_places(field, t))[b] - p[a] for t in shared]
    return sum(gaps) / len(gaps)


def monte_carlo_places(field: Field, seats: int, games: int, seed: int | str = "mc") -> dict[str, float]:
    """Mean place of each bot over ``games`` played round-robin games: a check on the exact values."""
    totals = dict.fromkeys(field.bots, 0)
    counts = dict.fromkeys(field.bots, 0)
    for game in itertools.islice(iter_games(field, seats, seed), games):
        for bot, place in zip(game.bots, game.places):
            totals[bot] += place
            counts[bot] += 1
    return {b: totals[b] / counts[b] for b in field.bots if counts[b]}


def field_for_gaps(gaps: Sequence[float], seats: int, names: Sequence[str] | None = None,
                   **model: float) -> Field:
    """A field whose neighbours, strongest first, differ by ``gaps`` in exact mean place.

    ``names`` (strongest first) defaults to ``b1, b2, ...``; ``model`` passes ``noise`` and
    ``deal_share`` on.  Solved for the strength steps by Newton's method on all gaps at once
    (a numerical Jacobian of at most five unknowns), to 1e-9.
    """
    n = len(gaps) + 1
    names = tuple(names) if names is not None else tuple(f"b{i + 1}" for i in range(n))
    if len(names) != n or any(g < 0 for g in gaps):
        raise ValueError("need one name per bot and non-negative gaps")

    def build(steps: Sequence[float]) -> Field:
        strengths = [0.0]
        for step in steps:
            strengths.append(strengths[-1] - step)
        return make_field(dict(zip(names, strengths)), **model)

    def residual(steps: Sequence[float]) -> list[float]:
        places = expected_places(build(steps), seats)
        return [places[names[i + 1]] - places[names[i]] - g for i, g in enumerate(gaps)]

    # A start from the heads-up relation gap = 2*Phi(step/sqrt2) - 1, scaled to the table.
    noise = model.get("noise", 1.0)
    steps = [noise * math.sqrt(2.0) * NormalDist().inv_cdf(min(0.5 + g / (seats - 1) / 2, 0.999)) for g in gaps]
    for _ in range(50):
        r = residual(steps)
        if max(map(abs, r), default=0.0) < 1e-9:
            break
        h = 1e-6
        cols = []
        for j in range(len(steps)):
            bumped = steps[:]
            bumped[j] += h
            cols.append([(x - y) / h for x, y in zip(residual(bumped), r)])
        jac = [[cols[j][i] for j in range(len(steps))] for i in range(len(steps))]
        step = _solve(jac, [-x for x in r])
        scale = 1.0
        while scale > 1e-3:  # damped: never step into negative strengths steps or a worse fit
            trial = [max(a + scale * b, 0.0) for a, b in zip(steps, step)]
            if max(map(abs, residual(trial))) < max(map(abs, r)):
                break
            scale /= 2
        steps = trial
    else:
        raise ValueError(f"no field of {seats}-seat tables has gaps {list(gaps)}")
    return build(steps)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` by Gaussian elimination with partial pivoting (tiny systems only)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def pool_truth(games: Iterable[GameOutcome]) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
    """The mean place of each bot and the mean place gap of each ordered pair ``(a, b)`` (b's place
    minus a's, over the games both played) in ``games``: the truth of a scenario that resamples a
    fixed pool of real games, which the calibration and stop-rule benchmarks check against."""
    place: Counter[str] = Counter()
    count: Counter[str] = Counter()
    diff: Counter[tuple[str, str]] = Counter()
    shared: Counter[tuple[str, str]] = Counter()
    for g in games:
        for a, pa in zip(g.bots, g.places):
            place[a] += pa
            count[a] += 1
            for b, pb in zip(g.bots, g.places):
                if a != b:
                    diff[(a, b)] += pb - pa
                    shared[(a, b)] += 1
    return {b: place[b] / count[b] for b in place}, {p: diff[p] / shared[p] for p in diff}
