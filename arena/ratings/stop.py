"""A stop rule for N-player tables: a tournament that stops when it knows.

After each block of games a runner asks :meth:`StopRule.decide` whether every neighbouring pair of
the order is settled.  Each pair (upper U, lower L) is tested on its paired place differences at
the tables both sat at, ``d = place_L - place_U`` per game (positive: U ahead), with the
cluster-robust per-game variance of :mod:`arena.ratings.confidence` (games of one match are
dependent; the variance is shrunk toward that of equal bots with the weight of ``prior_games``
games, so a few lucky games can not look certain).  With ``S`` the sum of ``d`` over ``N`` games
and ``v`` that variance, the evidence is a Gaussian log likelihood ratio:

* two-way (the default), U ahead by ``delta`` against L ahead by ``delta``:
  ``llr_upper = 2 * delta * S / v = -llr_lower``; U is ahead when ``llr_upper >= a``, L when
  ``llr_lower >= a``;
* three-way (``three_way=True``), each side against "equal":
  ``llr_upper = (delta*S - N*delta^2/2) / v``, ``llr_lower = (-delta*S - N*delta^2/2) / v``;
  slower (the hypotheses are half as far apart) but it orders a pair wrongly with probability at
  most ``alpha / pairs`` whatever their gap, also inside the zone;
* tied, in both modes: "equal" against each of "U ahead by delta" and "L ahead by delta",
  ``llr_tied = (N*delta^2/2 - delta*|S|) / v``; the pair is tied when ``llr_tied >= a``.  A tie
  takes precedence: it says the difference is demonstrably smaller than the zone.

The bound is ``a = log(pairs / alpha)``, ``pairs`` the number of neighbouring pairs (Bonferroni:
each pair gets ``alpha / pairs``).  Why peeking is safe: under the hypothesis a claim is wrong
about, its likelihood ratio is a nonnegative martingale with mean 1, so by Ville's inequality
the chance that it *ever* reaches ``1/level`` is at most ``level``, however often and whenever one
looks.  So the statuses are a pure function of the games so far (the order they come in does not
matter), a runner may ask after every game or every block, and a pair that was settled may
become open again (the tournament then plays on).  With the variance estimated this holds
approximately; ``benchmarks/calibration.py`` measures it.

What is guaranteed, approximately: the chance that the rule stops with some neighbouring pair
whose true gap is at least ``delta`` in the wrong order is at most ``alpha``; separately, the chance
that it calls such a pair tied is at most ``alpha``.  A pair closer than ``delta`` may come out in
either order (two-way), tied, or open at ``max_games``: the indifference zone is the difference too
small to be worth the games.  Strictly the Bonferroni split covers the pairs that are neighbours
when the rule stops; the order is the data's, so a pair far apart is hardly ever a wrong neighbour.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from arena.ratings import GameOutcome
from arena.ratings.confidence import ALPHA, DELTA, MatchOf, PairTable, estimate

Status = Literal["separated", "tied", "open"]

# Weight (in games) of the equal-bots variance the per-game variance is shrunk toward.  Without it a
# few games without spread look certain: heads-up at a gap of exactly delta, 600 simulated runs
# stopped in the wrong order 7.8% of the time with 0 (more than alpha = 5%), 3.7% with 20.
PRIOR_GAMES = 20.0


@dataclass(frozen=True, slots=True)
class PairTest:
    """The sequential test of one neighbouring pair."""

    upper: str
    lower: str
    status: Status
    ahead: str | None  # the bot the test found ahead; the lower one means the order disagrees
    games: int  # games they shared
    matches: int
    mean: float | None  # mean of place_lower - place_upper
    sd: float | None  # per-game standard deviation the test used
    llr_upper: float  # log likelihood ratio for "upper ahead"; a claim needs >= threshold
    llr_lower: float  # ... for "lower ahead"
    llr_tied: float  # ... for "they differ by less than delta"
    threshold: float  # log(pairs / alpha)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class StopDecision:
    """Whether to stop, why, and the state of every neighbouring pair."""

    stop: bool
    reason: str
    pairs: tuple[PairTest, ...]
    games: int
    order: tuple[str, ...]
    alpha: float
    delta: float
    max_games: int | None
    three_way: bool

    @property
    def unresolved(self) -> tuple[PairTest, ...]:
        """The pairs still open."""
        return tuple(p for p in self.pairs if p.status == "open")

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"stop": self.stop, "reason": self.reason, "pairs": [p.to_json() for p in self.pairs],
                "games": self.games, "order": list(self.order), "alpha": self.alpha, "delta": self.delta,
                "max_games": self.max_games, "three_way": self.three_way}


@dataclass(frozen=True, slots=True)
class StopRule:
    """The rule's parameters (a tournament file's ``[stop]``); see the module docstring."""

    alpha: float = ALPHA
    delta: float = DELTA
    max_games: int | None = None
    three_way: bool = False
    prior_games: float = PRIOR_GAMES

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha < 1.0 or self.delta <= 0.0 or self.prior_games < 0.0:
            raise ValueError("need 0 < alpha < 1, delta > 0 and prior_games >= 0")
        if self.max_games is not None and self.max_games < 0:
            raise ValueError("max_games must not be negative")

    def threshold(self, pairs: int) -> float:
        """The log likelihood ratio a claim about one of ``pairs`` pairs must reach."""
        return math.log(max(pairs, 1) / self.alpha)

    def tracker(self, match_of: MatchOf | None = None) -> StopTracker:
        """An empty :class:`StopTracker` to feed game by game."""
        return StopTracker(self, PairTable(match_of))

    def decide(self, outcomes: Iterable[GameOutcome], order: Sequence[str] | None = None, *,
               match_of: MatchOf | None = None) -> StopDecision:
        """Stop now?  ``order`` is best first (default: by mean place); ``match_of`` as in
        :mod:`arena.ratings.confidence` (default: every game its own match)."""
        t = self.tracker(match_of)
        t.extend(outcomes)
        return t.decide(order)


@dataclass(slots=True)
class StopTracker:
    """:meth:`StopRule.decide` kept up to date game by game (the same answers, O(1) per game)."""

    rule: StopRule
    table: PairTable
    places: dict[str, list[int]] = field(default_factory=dict)  # bot -> [sum of places, games]

    def add(self, game: GameOutcome) -> None:
        """One more game."""
        self.table.add(game)
        for bot, place in zip(game.bots, game.places):
            t = self.places.setdefault(bot, [0, 0])
            t[0] += place
            t[1] += 1

    def extend(self, games: Iterable[GameOutcome]) -> None:
        """More games."""
        for game in games:
            self.add(game)

    def order(self) -> list[str]:
        """Bots by mean place so far, best first (name breaks ties)."""
        return sorted(self.places, key=lambda b: (self.places[b][0] / self.places[b][1], b))

    def pair(self, upper: str, lower: str, threshold: float) -> PairTest:
        """The test of one pair against ``threshold``."""
        rule = self.rule
        counts, swapped = self.table.get(upper, lower)
        est = estimate(counts.clusters, rule.prior_games) if counts is not None else None
        if est is None:
            return PairTest(upper, lower, "open", None, 0, 0, None, None, 0.0, 0.0, 0.0, threshold)
        sign = -1.0 if swapped else 1.0
        s = sign * est.mean * est.games  # sum of place_lower - place_upper
        n, v, d = est.games, est.var, rule.delta
        if v <= 0.0:  # only with prior_games = 0 and no spread at all: no evidence either way
            return PairTest(upper, lower, "open", None, n, est.matches, s / n, 0.0, 0.0, 0.0, 0.0, threshold)
        if rule.three_way:
            up, down = (d * s - n * d * d / 2.0) / v, (-d * s - n * d * d / 2.0) / v
        else:
            up = 2.0 * d * s / v
            down = -up
        tied = (n * d * d / 2.0 - d * abs(s)) / v
        ahead = upper if up >= threshold else lower if down >= threshold else None
        if tied >= threshold:
            status: Status = "tied"
        elif ahead == upper:
            status = "separated"
        else:
            status = "open"
        return PairTest(upper, lower, status, ahead, n, est.matches, s / n, math.sqrt(v), up, down, tied,
                        threshold)

    def decide(self, order: Sequence[str] | None = None) -> StopDecision:
        """Stop now?  (See :meth:`StopRule.decide`.)"""
        rule = self.rule
        order = tuple(order) if order is not None else tuple(self.order())
        m = len(order) - 1
        threshold = rule.threshold(m)
        pairs = tuple(self.pair(u, l, threshold) for u, l in zip(order, order[1:]))
        games = self.table.games
        open_pairs = [p for p in pairs if p.status == "open"]

        def names(ps: Sequence[PairTest]) -> str:
            return ", ".join(f"{p.upper}>{p.lower}" + (" (reversed)" if p.ahead == p.lower else "") for p in ps)

        if m < 1:
            stop, reason = True, "fewer than two bots: nothing to order"
        elif not open_pairs:
            tied = [p for p in pairs if p.status == "tied"]
            stop = True
            reason = f"every neighbouring pair is settled after {games} games" + (
                f" ({len(tied)} tied: {names(tied)})" if tied else "")
        elif rule.max_games is not None and games >= rule.max_games:
            stop, reason = True, f"reached max_games = {rule.max_games}; unresolved: {names(open_pairs)}"
        else:
            stop, reason = False, f"unresolved: {names(open_pairs)}"
        return StopDecision(stop, reason, pairs, games, order, rule.alpha, rule.delta, rule.max_games,
                            rule.three_way)
