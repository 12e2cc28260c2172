"""How sure a ranking is, computed from the results themselves.

TrueSkill's own P(A better than B) = Phi(dmu / sqrt(sA^2 + sB^2)) was measured to be badly
miscalibrated on these games (shared/facts.md), so nothing here uses the ratings.  For two bots
A and B the evidence is their *paired place difference* at the tables both sat at: per game
``d = place_B - place_A`` (positive: A finished ahead).  Comparing them only where they met keeps
the difference free of who else was at the table.

Dependence.  Games of one match (a table's rotations of one deal) are not independent, so the
unit of evidence is the match, given by ``match_of(outcome)`` (default: every game is its own
match).  The interval on the mean difference is a cluster-robust normal interval: the mean is
``sum(d) / games`` and its variance is estimated from the spread of the per-match sums around it
(the sandwich estimator with the usual G/(G-1) small-sample factor), with Student's t quantile
on G - 1 degrees of freedom.  Chosen over a bootstrap over matches because it is the same
interval to first order, needs no seed, costs one pass (a live view can recompute it after every
block, a benchmark over thousands of tournaments), and its small-sample behaviour is better
understood; the bootstrap is kept as ``method="bootstrap"`` (seeded, ``resamples`` draws) and
``benchmarks/calibration.py`` measures the coverage of both.

Small samples.  A handful of games can show no spread at all (A ahead by 3 places every time),
and an interval of zero width would then claim certainty.  The per-game variance is therefore
shrunk toward the variance two *equal* bots would show at those tables, ``k(k+1)/6`` for a table
of ``k`` (``(k^2-1)/12`` for one bot's place), with the weight of ``prior_games`` games: a few
games barely move a sound estimate, and no estimate is trusted from nothing.

Reading the results.  ``p_*_better`` is the one-sided confidence ``T(mean / se)`` that the mean
difference is positive.  A pair is *separated* at level ``alpha`` when the two-sided
``1 - alpha`` interval excludes 0 (the same as ``p >= 1 - alpha/2``); it is *tied* when the whole
interval lies inside the indifference zone ``(-delta, +delta)``, the difference that does not
matter, and a tie takes precedence over a separation.  Otherwise the pair is *open*.  These are
fixed-sample statements: a tournament that checks them after every block and stops at the first
separation needs :mod:`arena.ratings.stop`, whose tests keep their error rate under peeking.

Everything returned is a frozen dataclass with ``to_json()`` (a dict of plain JSON values).
Only the standard library is used.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from statistics import NormalDist
from typing import Any, Literal

from arena.ratings import GameOutcome

MatchOf = Callable[[GameOutcome], Hashable]
Method = Literal["normal", "bootstrap"]
Status = Literal["separated", "tied", "open"]

ALPHA = 0.05
DELTA = 0.15  # mean places; the indifference zone measured on these games (shared/facts.md)
PRIOR_GAMES = 10.0
RESAMPLES = 1000  # bootstrap draws: the rank interval's ends move by well under one rank between seeds
# Past this many matches the rank ranges draw from the bootstrap's large-sample limit instead of
# resampling the matches (minutes of pure Python for 50,000 games; milliseconds this way), when
# every bot sat in at least LIMIT_MATCHES of them: a bot of a few matches is in a resample or not,
# which no normal describes.
BOOTSTRAP_MATCHES = 5_000
LIMIT_MATCHES = 200

_NORMAL = NormalDist()


# --- Student's t, from the standard library only -------------------------------------------------

def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with ``df`` degrees of freedom.

    Exact for whole ``df`` up to 400 (the finite series of Abramowitz & Stegun 26.7.3-4); above
    that, and for fractional ``df``, a normal approximation that is off by less than 1e-4 there.
    """
    if math.isinf(x):
        return 1.0 if x > 0 else 0.0
    if df > 400 or df != int(df):
        z = x * (1.0 - 1.0 / (4.0 * df)) / math.sqrt(1.0 + x * x / (2.0 * df))
        return _NORMAL.cdf(z)
    nu = int(df)
    theta = math.atan(abs(x) / math.sqrt(nu))
    c2 = math.cos(theta) ** 2
    if nu % 2:
        term, total = 1.0, 1.0
        for k in range(1, (nu - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            total += term
        inside = 2.0 / math.pi * (theta + (math.sin(theta) * math.cos(theta) * total if nu > 1 else 0.0))
    else:
        term, total = 1.0, 1.0
        for k in range(1, nu // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        inside = math.sin(theta) * total
    upper = 0.5 + 0.5 * inside
    return upper if x >= 0 else 1.0 - upper


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (bisection on :func:`t_cdf`; Cornish-Fisher above 400 df)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be strictly between 0 and 1")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    z = _NORMAL.inv_cdf(p)
    if df > 400:
        return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
    lo, hi = 0.0, max(2.0 * z, 1.0)
    while t_cdf(hi, df) < p:
        lo, hi = hi, 2.0 * hi
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# --- the estimator shared by pairs, bots and the stop rule ---------------------------------------

@dataclass(slots=True)
class Clusters:
    """Running sums of one quantity (a place difference, or a place) grouped by match.

    Besides each match's sum and count it keeps the sums of squares the cluster-robust variance
    needs, so that adding a game and estimating are O(1): a tournament runner can ask after every
    block without replaying the tournament.
    """

    sums: dict[Hashable, list[float]] = field(default_factory=dict)  # match -> [sum, games]
    games: int = 0
    total: float = 0.0
    prior_var: float = 0.0  # sum over games of the variance equal bots would show in that game
    ss: float = 0.0  # sum over matches of sum^2
    sn: float = 0.0  # ... of sum * games
    nn: float = 0.0  # ... of games^2

    def add(self, key: Hashable, value: float, equal_var: float) -> None:
        """One game's value, in match ``key``."""
        entry = self.sums.get(key)
        if entry is None:
            entry = self.sums[key] = [0.0, 0.0]
        s, k = entry
        self.ss += (s + value) ** 2 - s * s
        self.sn += (s + value) * (k + 1) - s * k
        self.nn += (k + 1) ** 2 - k * k
        entry[0] = s + value
        entry[1] = k + 1
        self.games += 1
        self.total += value
        self.prior_var += equal_var


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over games with its cluster-robust per-game variance (see the module docstring)."""

    games: int
    matches: int
    mean: float
    var: float  # per-game variance: the mean's variance is var / games
    df: int

    @property
    def se(self) -> float:
        """Standard error of the mean."""
        return math.sqrt(self.var / self.games) if self.games else math.inf


def estimate(c: Clusters, prior_games: float = PRIOR_GAMES) -> Estimate | None:
    """The mean of ``c`` and a variance shrunk toward equal bots' (``None`` without games)."""
    n, g = c.games, len(c.sums)
    if n == 0:
        return None
    mean = c.total / n
    equal = c.prior_var / n
    if g >= 2:
        # sum over matches of (sum - mean * games)^2, expanded; rounding can leave it just below 0
        spread = max(c.ss - 2.0 * mean * c.sn + mean * mean * c.nn, 0.0)
        robust = spread / n * g / (g - 1)
        var = (prior_games * equal + n * robust) / (prior_games + n)
    else:
        var = equal  # one match says nothing about the spread
    return Estimate(n, g, mean, var, max(g - 1, 1))


def _pair_equal_var(k: int) -> float:
    """Variance of place_B - place_A for two equal bots at a table of ``k`` (no ties)."""
    return k * (k + 1) / 6.0


def _place_equal_var(k: int) -> float:
    """Variance of an equal bot's place at a table of ``k`` (uniform on 1..k)."""
    return (k * k - 1) / 12.0


def _default_match(index: int, outcome: GameOutcome) -> Hashable:
    return index


def _keyer(match_of: MatchOf | None) -> Callable[[int, GameOutcome], Hashable]:
    if match_of is None:
        return _default_match
    return lambda _i, outcome: match_of(outcome)


@dataclass(slots=True)
class PairCounts:
    """One unordered pair's differences ``place_b - place_a`` by match, and who finished ahead."""

    clusters: Clusters = field(default_factory=Clusters)
    a_ahead: int = 0
    b_ahead: int = 0
    level: int = 0


@dataclass(slots=True)
class PairTable:
    """Pair counts fed one game at a time (``only``: the sorted pairs to keep, default all)."""

    match_of: MatchOf | None = None
    only: set[tuple[str, str]] | None = None
    pairs: dict[tuple[str, str], PairCounts] = field(default_factory=dict)
    games: int = 0

    def add(self, game: GameOutcome) -> None:
        """One more game; its match is ``match_of(game)``, or its position when there is none."""
        key = self.match_of(game) if self.match_of is not None else self.games
        self.games += 1
        k = len(game.bots)
        seated = sorted(zip(game.bots, game.places))
        for x in range(k):
            a, pa = seated[x]
            for y in range(x + 1, k):
                b, pb = seated[y]
                if self.only is not None and (a, b) not in self.only:
                    continue
                acc = self.pairs.get((a, b))
                if acc is None:
                    acc = self.pairs[(a, b)] = PairCounts()
                acc.clusters.add(key, pb - pa, _pair_equal_var(k))
                if pa < pb:
                    acc.a_ahead += 1
                elif pb < pa:
                    acc.b_ahead += 1
                else:
                    acc.level += 1

    def get(self, a: str, b: str) -> tuple[PairCounts | None, bool]:
        """The counts of the pair and whether they are stored the other way round (b, a)."""
        if a < b:
            return self.pairs.get((a, b)), False
        return self.pairs.get((b, a)), True


def _pair_counts(outcomes: Iterable[GameOutcome], match_of: MatchOf | None,
                 only: set[tuple[str, str]] | None = None) -> dict[tuple[str, str], PairCounts]:
    """Per unordered pair (names sorted), the differences ``place_b - place_a`` by match."""
    table = PairTable(match_of, only)
    for game in outcomes:
        table.add(game)
    return table.pairs


# --- pairs ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PairStats:
    """Bots ``a`` and ``b`` over the games where both sat; differences are ``place_b - place_a``."""

    a: str
    b: str
    games: int
    matches: int  # distinct matches among those games: the independent units
    a_ahead: int
    b_ahead: int
    level: int  # games where they tied for a place
    mean: float | None  # mean place difference: positive means ``a`` finished ahead on average
    low: float | None  # the 1 - alpha interval of the true mean difference
    high: float | None
    p_a_better: float  # confidence that the true mean difference is positive
    ahead: str | None  # the bot the interval puts ahead (it excludes 0), else None
    tied: bool  # the interval lies inside (-delta, +delta)
    alpha: float
    delta: float
    method: str

    @property
    def status(self) -> Status:
        """``tied``, ``separated`` (either way) or ``open``; see the module docstring."""
        return "tied" if self.tied else "separated" if self.ahead else "open"

    def flipped(self) -> PairStats:
        """The same statistics seen from ``b``."""
        neg = (lambda x: None if x is None else -x)
        return PairStats(self.b, self.a, self.games, self.matches, self.b_ahead, self.a_ahead, self.level,
                         neg(self.mean), neg(self.high), neg(self.low), 1.0 - self.p_a_better, self.ahead,
                         self.tied, self.alpha, self.delta, self.method)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values, with the status spelled out."""
        return {**asdict(self), "status": self.status}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PairStats:
        """The statistics :meth:`to_json` gave (a stored view read back)."""
        return cls(**{k: v for k, v in data.items() if k != "status"})


def _interval(est: Estimate, alpha: float) -> tuple[float, float, float]:
    """(low, high, p_better) of the normal-theory interval."""
    q = t_quantile(1.0 - alpha / 2.0, est.df)
    se = est.se
    if se == 0.0:
        p = 1.0 if est.mean > 0 else 0.0 if est.mean < 0 else 0.5
        return est.mean, est.mean, p
    return est.mean - q * se, est.mean + q * se, t_cdf(est.mean / se, est.df)


def _bootstrap(c: Clusters, alpha: float, resamples: int, rng: random.Random) -> tuple[float, float, float]:
    """(low, high, p_better) of the percentile bootstrap over matches."""
    units = list(c.sums.values())
    g = len(units)
    means = []
    for _ in range(resamples):
        s = k = 0.0
        for _ in range(g):
            us, uk = units[rng.randrange(g)]
            s += us
            k += uk
        means.append(s / k)
    means.sort()
    low = means[int(alpha / 2 * resamples)]
    high = means[max(math.ceil((1 - alpha / 2) * resamples) - 1, 0)]
    above = sum(m > 0 for m in means) + 0.5 * sum(m == 0 for m in means)
    return low, high, above / resamples


def _pair_stats(a: str, b: str, acc: PairCounts | None, *, alpha: float, delta: float, method: Method,
                resamples: int, seed: int | str, prior_games: float) -> PairStats:
    """Statistics for the sorted pair (a, b) from its counts."""
    est = estimate(acc.clusters, prior_games) if acc is not None else None
    if acc is None or est is None:
        return PairStats(a, b, 0, 0, 0, 0, 0, None, None, None, 0.5, None, False, alpha, delta, method)
    if method == "bootstrap":
        low, high, p = _bootstrap(acc.clusters, alpha, resamples, random.Random(f"{seed}:{a}:{b}"))
    elif method == "normal":
        low, high, p = _interval(est, alpha)
    else:
        raise ValueError(f"unknown method {method!r} (normal, bootstrap)")
    ahead = a if low > 0 else b if high < 0 else None
    tied = -delta < low and high < delta
    return PairStats(a, b, est.games, est.matches, acc.a_ahead, acc.b_ahead, acc.level, est.mean, low, high,
                     p, ahead, tied, alpha, delta, method)


def head_to_head(outcomes: Iterable[GameOutcome], a: str, b: str, *, match_of: MatchOf | None = None,
                 alpha: float = ALPHA, delta: float = DELTA, method: Method = "normal",
                 resamples: int = RESAMPLES, seed: int | str = 0, prior_games: float = PRIOR_GAMES) -> PairStats:
    """How ``a`` did against ``b`` at the tables they shared (``arena h2h A B``)."""
    if a == b:
        raise ValueError("a head-to-head needs two different bots")
    x, y = sorted((a, b))
    acc = _pair_counts(outcomes, match_of, {(x, y)}).get((x, y))
    stats = _pair_stats(x, y, acc, alpha=alpha, delta=delta, method=method, resamples=resamples,
                        seed=seed, prior_games=prior_games)
    return stats if x == a else stats.flipped()


# --- bots: mean place and rank -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BotInterval:
    """One leaderboard line's uncertainty: the mean place and the rank, each with an interval."""

    bot: str
    rank: int  # position in the order given (1 = top)
    games: int
    matches: int
    mean_place: float
    low: float  # 1 - alpha interval of the bot's true mean place over the games it played
    high: float
    rank_low: int  # central 1 - alpha range of its rank by mean place over bootstrap resamples
    rank_high: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Neighbour:
    """Two bots next to each other in the order: is the upper one truly better?"""

    upper: str
    lower: str
    games: int  # games they shared
    mean: float | None  # mean of place_lower - place_upper at those games
    low: float | None
    high: float | None
    p_upper_better: float
    separated: bool  # the interval puts the upper one ahead and the pair is not tied
    status: Status  # "separated", "tied", or "open" (also when the data put the lower one ahead)
    ahead: str | None  # the bot the interval puts ahead, if it excludes 0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Ranking:
    """Intervals for every bot and the certainty of every neighbouring pair of an order."""

    bots: tuple[BotInterval, ...]
    neighbours: tuple[Neighbour, ...]
    alpha: float
    delta: float
    method: str
    resamples: int
    seed: int | str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"bots": [b.to_json() for b in self.bots], "neighbours": [n.to_json() for n in self.neighbours],
                "alpha": self.alpha, "delta": self.delta, "method": self.method,
                "resamples": self.resamples, "seed": self.seed}


def _bot_clusters(outcomes: Sequence[GameOutcome], match_of: MatchOf | None) -> dict[str, Clusters]:
    key_of = _keyer(match_of)
    bots: dict[str, Clusters] = {}
    for i, game in enumerate(outcomes):
        key = key_of(i, game)
        k = len(game.bots)
        for bot, place in zip(game.bots, game.places):
            bots.setdefault(bot, Clusters()).add(key, place, _place_equal_var(k))
    return bots


def mean_place_order(outcomes: Iterable[GameOutcome]) -> list[str]:
    """Bots by mean place, best first (name breaks ties): the order when none is given."""
    totals: dict[str, list[int]] = {}
    for game in outcomes:
        for bot, place in zip(game.bots, game.places):
            t = totals.setdefault(bot, [0, 0])
            t[0] += place
            t[1] += 1
    return sorted(totals, key=lambda b: (totals[b][0] / totals[b][1], b))


def _rank_ranges(outcomes: Sequence[GameOutcome], match_of: MatchOf | None, bots: Sequence[str],
                 alpha: float, resamples: int, seed: int | str) -> dict[str, tuple[int, int]]:
    """Central 1 - alpha range of each bot's rank by mean place, resampling whole matches."""
    key_of = _keyer(match_of)
    index = {b: i for i, b in enumerate(bots)}
    units: dict[Hashable, dict[int, list[int]]] = {}
    for i, game in enumerate(outcomes):
        unit = units.setdefault(key_of(i, game), {})
        for bot, place in zip(game.bots, game.places):
            if bot in index:
                t = unit.setdefault(index[bot], [0, 0])
                t[0] += place
                t[1] += 1
    cells = [list(u.items()) for u in units.values()]
    if not cells:
        return {}
    if len(cells) > BOOTSTRAP_MATCHES:
        seen = [0] * len(bots)
        for unit in cells:
            for b, _ in unit:
                seen[b] += 1
        if min(seen) >= LIMIT_MATCHES:
            return _rank_ranges_limit(cells, bots, alpha, resamples, seed)
    rng = random.Random(f"{seed}:ranks")
    # Equal mean places (common in small samples) are ordered at random in each resample, so that
    # tied bots share the ranks they tie for instead of the first in ``bots`` taking the better one.
    # Its own stream: resamples without a tie draw what they drew before.
    ties = random.Random(f"{seed}:ties")
    ranks: list[list[int]] = [[] for _ in bots]
    g = len(cells)
    for _ in range(resamples):
        sums = [0] * len(bots)
        counts = [0] * len(bots)
        for _ in range(g):
            for b, (s, k) in cells[rng.randrange(g)]:
                sums[b] += s
                counts[b] += k
        present = sorted((sums[b] / counts[b], ties.random(), b) for b in range(len(bots)) if counts[b])
        for r, (_, _, b) in enumerate(present, start=1):
            ranks[b].append(r)
    out = {}
    for b, bot in enumerate(bots):
        rs = sorted(ranks[b])
        if rs:
            n = len(rs)
            out[bot] = (rs[int(alpha / 2 * n)], rs[max(math.ceil((1 - alpha / 2) * n) - 1, 0)])
    return out


def _rank_ranges_limit(cells: list[list[tuple[int, list[int]]]], bots: Sequence[str], alpha: float,
                       resamples: int, seed: int | str) -> dict[str, tuple[int, int]]:
    """The rank ranges of :func:`_rank_ranges` drawn from the bootstrap's limit, for many matches.

    A resample of g matches sums g draws of one match's vector (each bot's place sum and game
    count there), so by the central limit theorem its sums are normal with g times the mean and
    g times the covariance of the matches' vectors: drawn here from that normal (a Cholesky
    factor of the covariance, 2 numbers a bot) instead of summing g matches a resample.  The ranks
    are those of each draw's mean places, as in the bootstrap."""
    n = len(bots)
    d = 2 * n  # place sums, then game counts
    g = len(cells)
    total = [0.0] * d
    square = [[0.0] * d for _ in range(d)]
    for unit in cells:
        entries = [(b, float(s)) for b, (s, _) in unit] + [(n + b, float(k)) for b, (_, k) in unit]
        for i, x in entries:
            total[i] += x
            row = square[i]
            for j, y in entries:
                row[j] += x * y
    mean = [t / g for t in total]
    cov = [[square[i][j] / g - mean[i] * mean[j] for j in range(d)] for i in range(d)]
    factor = _cholesky(cov)
    rng = random.Random(f"{seed}:ranks")
    ranks: list[list[int]] = [[] for _ in bots]
    scale = math.sqrt(g)
    present = [b for b in range(n) if total[n + b] > 0]
    for _ in range(resamples):
        z = [rng.gauss(0.0, 1.0) for _ in range(d)]
        draw = [g * mean[i] + scale * sum(f * x for f, x in zip(factor[i], z)) for i in range(d)]
        # A bot in a handful of matches may draw no games at all: out of that draw, as it would
        # be out of a resample without its matches.
        order = sorted((b for b in present if draw[n + b] > 0), key=lambda b: (draw[b] / draw[n + b], b))
        for r, b in enumerate(order, start=1):
            ranks[b].append(r)
    out = {}
    for b, bot in enumerate(bots):
        rs = sorted(ranks[b])
        if rs:
            k = len(rs)
            out[bot] = (rs[int(alpha / 2 * k)], rs[max(math.ceil((1 - alpha / 2) * k) - 1, 0)])
    return out


def _cholesky(a: list[list[float]]) -> list[list[float]]:
    """A lower-triangular L with L Lᵀ = a, for a covariance that may be singular (a bot that
    plays once in every match has a count of no variance): a pivot at zero gets a zero column."""
    d = len(a)
    low = [[0.0] * d for _ in range(d)]
    for j in range(d):
        pivot = a[j][j] - sum(low[j][k] ** 2 for k in range(j))
        if pivot <= 1e-12 * max(a[j][j], 1.0):
            continue
        low[j][j] = math.sqrt(pivot)
        for i in range(j + 1, d):
            low[i][j] = (a[i][j] - sum(low[i][k] * low[j][k] for k in range(j))) / low[j][j]
    return low


def ranking_confidence(outcomes: Sequence[GameOutcome], order: Sequence[str] | None = None, *,
                       match_of: MatchOf | None = None, alpha: float = ALPHA, delta: float = DELTA,
                       method: Method = "normal", resamples: int = RESAMPLES, seed: int | str = 0,
                       prior_games: float = PRIOR_GAMES, rank_ranges: bool = True) -> Ranking:
    """How sure an order is: per bot a mean-place interval and rank range, per neighbouring pair
    the chance that the upper one is better and whether they are separated.

    ``order`` is the leaderboard's (best first); by default the bots by mean place.  Bots in
    ``order`` without games get no line.  The rank range is by mean place, so it can disagree
    with a rank by rating; ``rank_ranges=False`` skips its bootstrap (the ranges are then the
    rank itself).
    """
    outcomes = list(outcomes)
    order = list(order) if order is not None else mean_place_order(outcomes)
    per_bot = _bot_clusters(outcomes, match_of)
    order = [b for b in order if b in per_bot]
    ranges = _rank_ranges(outcomes, match_of, order, alpha, resamples, seed) if rank_ranges else {}
    lines = []
    for rank, bot in enumerate(order, start=1):
        est = estimate(per_bot[bot], prior_games)
        assert est is not None
        low, high, _ = _interval(est, alpha)
        r_low, r_high = ranges.get(bot, (rank, rank))
        lines.append(BotInterval(bot, rank, est.games, est.matches, est.mean, low, high, r_low, r_high))
    wanted = {tuple(sorted(p)) for p in zip(order, order[1:])}
    counts = _pair_counts(outcomes, match_of, wanted)  # type: ignore[arg-type]
    neighbours = []
    for upper, lower in zip(order, order[1:]):
        x, y = sorted((upper, lower))
        s = _pair_stats(x, y, counts.get((x, y)), alpha=alpha, delta=delta, method=method,
                        resamples=resamples, seed=seed, prior_games=prior_games)
        if x != upper:
            s = s.flipped()
        separated = s.ahead == upper and not s.tied
        status: Status = "tied" if s.tied else "separated" if separated else "open"
        neighbours.append(Neighbour(upper, lower, s.games, s.mean, s.low, s.high, s.p_a_better,
                                    separated, status, s.ahead))
    return Ranking(tuple(lines), tuple(neighbours), alpha, delta, method, resamples, seed)


# --- crosstable and seats ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SeatStats:
    """A bot's results from one seat at tables of one size (seat 0 moves first)."""

    bot: str
    players: int
    seat: int
    games: int
    wins: int  # games it finished first alone, as the leaderboard counts them
    mean_place: float
    win_rate: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatStats:
        """The line :meth:`to_json` gave."""
        return cls(**data)


def seat_stats(outcomes: Iterable[GameOutcome]) -> tuple[SeatStats, ...]:
    """Per bot, table size and seat index: games, wins, mean place, win rate (sorted by those keys)."""
    acc: dict[tuple[str, int, int], list[int]] = {}
    for game in outcomes:
        k = len(game.bots)
        sole_first = game.places.count(1) == 1
        for seat, (bot, place) in enumerate(zip(game.bots, game.places)):
            t = acc.setdefault((bot, k, seat), [0, 0, 0])
            t[0] += 1
            t[1] += place == 1 and sole_first
            t[2] += place
    return tuple(SeatStats(bot, k, seat, n, w, s / n, w / n) for (bot, k, seat), (n, w, s) in sorted(acc.items()))


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Every pair's head-to-head and every bot's per-seat results (``arena crosstable``)."""

    bots: tuple[str, ...]
    pairs: tuple[PairStats, ...]  # each pair once, ``a`` before ``b`` in ``bots``
    seats: tuple[SeatStats, ...]
    alpha: float
    delta: float
    method: str

    def pair(self, a: str, b: str) -> PairStats:
        """The head-to-head of ``a`` against ``b`` (``KeyError`` if either is not in the table)."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                return p.flipped()
        raise KeyError(f"no pair {a!r}, {b!r} in the crosstable")

    def seats_of(self, bot: str) -> tuple[SeatStats, ...]:
        """The bot's per-seat lines."""
        return tuple(s for s in self.seats if s.bot == bot)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"bots": list(self.bots), "pairs": [p.to_json() for p in self.pairs],
                "seats": [s.to_json() for s in self.seats], "alpha": self.alpha, "delta": self.delta,
                "method": self.method}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Crosstable:
        """The crosstable :meth:`to_json` gave (a stored view read back)."""
        return cls(tuple(data["bots"]), tuple(PairStats.from_json(p) for p in data["pairs"]),
                   tuple(SeatStats.from_json(x) for x in data["seats"]), data["alpha"], data["delta"], data["method"])


def crosstable(outcomes: Sequence[GameOutcome], order: Sequence[str] | None = None, *,
               match_of: MatchOf | None = None, alpha: float = ALPHA, delta: float = DELTA,
               method: Method = "normal", resamples: int = RESAMPLES, seed: int | str = 0,
               prior_games: float = PRIOR_GAMES) -> Crosstable:
    """Head-to-head statistics for every pair of bots (in ``order``, default by mean place)."""
    outcomes = list(outcomes)
    order = list(order) if order is not None else mean_place_order(outcomes)
    counts = _pair_counts(outcomes, match_of)
    pairs = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            x, y = sorted((a, b))
            s = _pair_stats(x, y, counts.get((x, y)), alpha=alpha, delta=delta, method=method,
                            resamples=resamples, seed=seed, prior_games=prior_games)
            pairs.append(s if x == a else s.flipped())
    return Crosstable(tuple(order), tuple(pairs), seat_stats(outcomes), alpha, delta, method)
