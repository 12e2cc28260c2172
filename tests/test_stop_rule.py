"""The stop rule: hand-computed evidence, fields of equal bots, clear fields, ties, budgets, and the
determinism a resumable tournament needs.  Rates (how often it errs at the zone's edge) are
measured by benchmarks/calibration.py; the one test here that repeats many runs is marked perf."""

from __future__ import annotations

import json
import math
import random

import pytest

from arena.ratings import GameOutcome
from arena.ratings.simulate import field_for_gaps, iter_games, make_field, match_of, pair_gap
from arena.ratings.stop import StopDecision, StopRule

LOG20 = math.log(20)


def heads_up(wins: int, losses: int) -> list[GameOutcome]:
    return [GameOutcome(("a", "b"), (1, 2), f"w{i}") for i in range(wins)] + \
           [GameOutcome(("b", "a"), (1, 2), f"l{i}") for i in range(losses)]


def play_until_stop(rule: StopRule, field, seats: int, seed, block: int | None = None) -> StopDecision:
    """Feed a round-robin stream block by block, as a runner does, until the rule says stop."""
    tracker = rule.tracker(match_of)
    games = iter_games(field, seats, seed)
    while True:
        for _ in range(block or seats):
            tracker.add(next(games))
        decision = tracker.decide()
        if decision.stop:
            return decision


def test_hand_computed_evidence():
    rule = StopRule(prior_games=0)
    # 8 wins and 2 losses: S = 6, per-game variance 0.64 * 10/9, llr = 2 * 0.15 * 6 / v.
    d = rule.decide(heads_up(8, 2))
    (p,) = d.pairs
    v = 0.64 * 10 / 9
    assert (p.upper, p.lower, p.games, p.matches) == ("a", "b", 10, 10)
    assert p.mean == pytest.approx(0.6) and p.sd == pytest.approx(math.sqrt(v))
    assert p.llr_upper == pytest.approx(0.3 * 6 / v) and p.llr_lower == pytest.approx(-0.3 * 6 / v)
    assert p.llr_tied == pytest.approx((10 * 0.0225 / 2 - 0.15 * 6) / v)
    assert p.threshold == pytest.approx(LOG20)
    assert p.llr_upper < LOG20 and p.status == "open" and not d.stop and d.reason == "unresolved: a>b"
    # Two more wins: S = 8, v = (10/9 + 2*25/9) / 12 * 12/11, llr = 3.96 > log 20.
    d = rule.decide(heads_up(10, 2))
    assert d.pairs[0].llr_upper == pytest.approx(0.3 * 8 / ((10 / 9 + 50 / 9) / 11))
    assert d.stop and d.pairs[0].status == "separated" and d.pairs[0].ahead == "a"
    assert d.reason == "every neighbouring pair is settled after 12 games"


def test_the_bound_is_split_over_the_neighbouring_pairs():
    rule = StopRule(alpha=0.05)
    assert rule.threshold(1) == pytest.approx(math.log(20))
    assert rule.threshold(5) == pytest.approx(math.log(100))
    f = field_for_gaps([0.5] * 5, 4)
    d = rule.decide(list(iter_games_n(f, 4, 8)))
    assert len(d.pairs) == 5 and all(p.threshold == pytest.approx(math.log(100)) for p in d.pairs)


def iter_games_n(field, seats, n, seed=0):
    games = iter_games(field, seats, seed)
    return [next(games) for _ in range(n)]


def test_three_way_evidence_is_against_equality():
    rule = StopRule(prior_games=0, three_way=True)
    p = rule.decide(heads_up(10, 2)).pairs[0]
    v = (10 / 9 + 50 / 9) / 11
    assert p.llr_upper == pytest.approx((0.15 * 8 - 12 * 0.0225 / 2) / v)
    assert p.llr_lower == pytest.approx((-0.15 * 8 - 12 * 0.0225 / 2) / v)
    assert p.status == "open"  # the same games settle the two-way test but not this one


@pytest.mark.parametrize("seed", range(10))
def test_a_field_of_equal_bots_does_not_stop_within_a_small_budget(seed):
    f = make_field({"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}, deal_share=0.3)
    d = play_until_stop(StopRule(max_games=300), f, 4, seed)
    assert d.games == 300 and d.unresolved
    assert d.reason.startswith("reached max_games = 300; unresolved: ")


@pytest.mark.parametrize("seed", range(10))
def test_a_clear_field_stops_quickly_in_the_true_order(seed):
    f = field_for_gaps([0.8, 0.8, 0.8], 4, deal_share=0.3)
    d = play_until_stop(StopRule(max_games=2000), f, 4, seed)
    assert d.order == f.order() and not d.unresolved
    assert d.games <= 100  # 28-60 games in these seeds; a fixed 500 would waste the rest
    assert all(p.status == "separated" and p.ahead == p.upper for p in d.pairs)


def test_a_clear_field_never_stops_in_a_wrong_order():
    f = field_for_gaps([0.4, 0.4, 0.4], 4, deal_share=0.3)
    stops = [play_until_stop(StopRule(max_games=3000), f, 4, seed) for seed in range(30)]
    assert all(d.order == f.order() and not d.unresolved for d in stops)
    assert max(d.games for d in stops) < 400


def test_six_bots_at_tables_of_four():
    f = field_for_gaps([0.6] * 5, 4, deal_share=0.3)
    d = play_until_stop(StopRule(max_games=3000), f, 4, 1)
    assert d.order == f.order() and not d.unresolved and len(d.pairs) == 5
    assert all(0 < p.games < d.games for p in d.pairs)  # neighbours share only some tables


def test_bots_that_always_tie_are_settled_as_tied():
    games = [GameOutcome(("a", "b", "c"), (1, 1, 3) if i % 2 else (2, 2, 1), f"g{i}") for i in range(200)]
    d = StopRule().decide(games, ["a", "b", "c"])
    ab, bc = d.pairs
    assert (ab.upper, ab.lower, ab.status, ab.mean) == ("a", "b", "tied", 0.0)
    assert ab.llr_tied >= ab.threshold
    assert (bc.status, bc.mean) == ("separated", 0.5)  # c is 2 places behind or 1 ahead, in turn
    assert d.stop and "1 tied: a>b" in d.reason


def test_three_way_reports_equal_bots_as_tied():
    f = make_field({"a": 0.0, "b": 0.0}, deal_share=0.3)
    games = iter_games_n(f, 2, 1500, seed=3)
    d = StopRule(three_way=True).decide(games, match_of=match_of)
    assert d.stop and d.pairs[0].status == "tied" and d.pairs[0].ahead is None


def test_a_reversed_order_is_open_and_said_so():
    d = StopRule(prior_games=0).decide(heads_up(30, 2), ["b", "a"])
    (p,) = d.pairs
    assert (p.upper, p.lower, p.status, p.ahead) == ("b", "a", "open", "a")
    assert p.llr_lower >= p.threshold and not d.stop and d.reason == "unresolved: b>a (reversed)"
    assert StopRule(prior_games=0).decide(heads_up(30, 2)).order == ("a", "b")  # by mean place


def test_pairs_that_never_met_stay_open_until_the_budget():
    games = [GameOutcome(("a", "b"), (1, 2), f"x{i}") for i in range(100)] + \
            [GameOutcome(("c", "d"), (1, 2), f"y{i}") for i in range(100)]
    d = StopRule(max_games=300).decide(games, ["a", "c", "b", "d"])
    assert [p.games for p in d.pairs] == [0, 0, 0] and not d.stop
    assert StopRule(max_games=200).decide(games, ["a", "c", "b", "d"]).stop


def test_the_budget_stops_and_names_the_unresolved_pairs():
    games = heads_up(5, 5)
    d = StopRule(max_games=10).decide(games)
    assert d.stop and [p.status for p in d.unresolved] == ["open"]
    assert d.reason == "reached max_games = 10; unresolved: a>b"
    assert not StopRule(max_games=11).decide(games).stop
    assert StopRule().decide([GameOutcome(("a", "b"), (1, 2))], ["a"]).stop  # one bot: nothing to order


def test_the_answer_depends_on_the_games_not_their_order_or_the_blocks():
    f = field_for_gaps([0.3, 0.3, 0.3], 4, deal_share=0.3)
    games = iter_games_n(f, 4, 160, seed=11)
    rule = StopRule(max_games=500)
    whole = rule.decide(games, match_of=match_of)
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    assert rule.decide(shuffled, match_of=match_of) == whole
    tracker = rule.tracker(match_of)
    for i in range(0, 160, 12):  # blocks of 12, the last one short
        tracker.extend(games[i:i + 12])
        tracker.decide()
    assert tracker.decide() == whole
    assert json.loads(json.dumps(whole.to_json()))["pairs"][0]["upper"] == whole.pairs[0].upper


def test_bad_parameters_are_refused():
    for bad in ({"alpha": 0.0}, {"alpha": 1.0}, {"delta": 0.0}, {"prior_games": -1.0}, {"max_games": -5}):
        with pytest.raises(ValueError):
            StopRule(**bad)


@pytest.mark.perf
def test_at_the_edge_of_the_zone_wrong_stops_stay_near_alpha():
    # Every gap exactly delta: the hardest field the guarantee covers.  Measured in
    # benchmarks/calibration.py over 200 runs; here 100 runs must stay under twice alpha.
    f = field_for_gaps([0.15, 0.15, 0.15], 4, deal_share=0.3)
    wrong = 0
    for seed in range(100):
        d = play_until_stop(StopRule(max_games=4000), f, 4, f"edge{seed}")
        wrong += any(p.status == "separated" and pair_gap(f, p.upper, p.lower, 4) < 0 for p in d.pairs)
    assert wrong <= 10
