"""How sure a ranking is: paired place differences, their intervals, rank ranges, the crosstable
and per-seat results, against hand-computed cases; Student's t; and the simulated fields the
benchmarks judge claims by."""

from __future__ import annotations

import json
import math

import pytest

from arena.ratings import GameOutcome
from arena.ratings.confidence import (
    Crosstable, PairStats, crosstable, head_to_head, ranking_confidence, seat_stats, t_cdf, t_quantile,
)
from arena.ratings.simulate import (
    expected_places, field_for_gaps, make_field, match_of, monte_carlo_places, pair_gap, tournament,
)

# Differences place_b - place_a for (a, b): +1, -2, +2, 0 (a tie); two matches of two games.
SMALL = [
    GameOutcome(("a", "b", "c"), (1, 2, 3), "m1:0"),
    GameOutcome(("b", "a", "c"), (1, 3, 2), "m1:1"),
    GameOutcome(("a", "c", "b"), (1, 2, 3), "m2:0"),
    GameOutcome(("a", "b"), (1, 1), "m2:1"),
]


def by_match(game: GameOutcome) -> str:
    return game.game_id.split(":")[0]


def t3_cdf(x: float) -> float:
    """Student's t with 3 degrees of freedom in closed form."""
    theta = math.atan(x / math.sqrt(3))
    return 0.5 + (theta + math.sin(theta) * math.cos(theta)) / math.pi


def test_a_hand_computed_pair():
    s = head_to_head(SMALL, "a", "b", prior_games=0)
    assert (s.games, s.matches, s.a_ahead, s.b_ahead, s.level) == (4, 4, 2, 1, 1)
    assert s.mean == pytest.approx(0.25)
    # Each game its own match: variance sum((d - 0.25)^2) / 4 * 4/3 = 35/12, se = sqrt(35/48).
    se = math.sqrt(35 / 48)
    assert s.low == pytest.approx(0.25 - 3.182446305 * se, abs=1e-6)
    assert s.high == pytest.approx(0.25 + 3.182446305 * se, abs=1e-6)
    assert s.p_a_better == pytest.approx(t3_cdf(0.25 / se), abs=1e-9)
    assert (s.ahead, s.tied, s.status) == (None, False, "open")


def test_matches_are_the_resampled_units():
    s = head_to_head(SMALL, "a", "b", prior_games=0, match_of=by_match)
    # Match sums -1 and +2 over 2 games each: spread (1.5^2 + 1.5^2) / 4 * 2/1 = 2.25, se = 0.75, 1 df.
    assert (s.games, s.matches) == (4, 2)
    assert s.high - s.mean == pytest.approx(12.7062047 * 0.75, abs=1e-5)
    assert s.high - s.low > 2 * (head_to_head(SMALL, "a", "b", prior_games=0).high - 0.25)


def test_the_variance_is_shrunk_toward_equal_bots():
    # Equal bots: k(k+1)/6 per game, 2 at the three 3-seat tables and 1 heads-up, mean 1.75.
    s = head_to_head(SMALL, "a", "b", prior_games=10)
    var = (10 * 1.75 + 4 * 35 / 12) / 14
    assert s.high - s.mean == pytest.approx(3.182446305 * math.sqrt(var / 4), abs=1e-6)


def test_the_pair_seen_from_the_other_side():
    ab, ba = head_to_head(SMALL, "a", "b"), head_to_head(SMALL, "b", "a")
    assert ba == ab.flipped() and ba.flipped() == ab
    assert (ba.a, ba.b, ba.a_ahead, ba.b_ahead) == ("b", "a", 1, 2)
    assert ba.mean == -ab.mean and ba.low == -ab.high and ba.p_a_better == pytest.approx(1 - ab.p_a_better)
    with pytest.raises(ValueError):
        head_to_head(SMALL, "a", "a")


def test_a_huge_gap_is_separated():
    games = [GameOutcome(("a", "x", "y", "b")[r:] + ("a", "x", "y", "b")[:r], (1, 2, 3, 4)[r:] + (1, 2, 3, 4)[:r],
                         f"g{i}:{r}") for i in range(8) for r in range(4)]
    s = head_to_head(games, "a", "b", match_of=match_of)
    assert s.mean == 3 and s.a_ahead == 32 and s.status == "separated" and s.ahead == "a"
    assert 0 < s.low < 3 < s.high  # no spread at all, yet the interval has width: the prior
    assert s.p_a_better > 0.9999
    # Without the prior, eight matches without spread would claim certainty: a zero-width interval.
    bare = head_to_head(games, "a", "b", match_of=match_of, prior_games=0)
    assert bare.low == bare.high == 3


def test_bots_that_always_tie_are_tied_and_level():
    games = [GameOutcome(("a", "b", "c"), (1, 1, 3) if i % 2 else (2, 2, 1), f"g{i}") for i in range(300)]
    s = head_to_head(games, "a", "b")
    assert (s.level, s.a_ahead, s.b_ahead, s.mean) == (300, 0, 0, 0)
    assert s.tied and s.status == "tied" and s.ahead is None and s.p_a_better == pytest.approx(0.5)
    assert -0.15 < s.low < 0 < s.high < 0.15


def test_equal_bots_over_many_games_are_tied_not_separated():
    f = make_field({"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}, deal_share=0.3)
    games = tournament(f, 4, 2400, seed="equal")
    s = head_to_head(games, "a", "b", match_of=match_of)
    assert s.low < 0 < s.high and s.status == "tied"
    assert 0.05 < s.p_a_better < 0.95


def test_pairs_that_never_shared_a_table():
    games = [GameOutcome(("a", "b"), (1, 2), "g1"), GameOutcome(("c", "d"), (2, 1), "g2")]
    s = head_to_head(games, "a", "c")
    assert (s.games, s.mean, s.low, s.high, s.p_a_better, s.status) == (0, None, None, None, 0.5, "open")
    table = crosstable(games)
    assert table.pair("a", "c").games == 0 and table.pair("a", "b").games == 1
    assert json.loads(json.dumps(table.to_json()))["pairs"][0]["status"] in ("open", "separated", "tied")


def test_the_interval_shrinks_with_more_data():
    f = field_for_gaps([0.3, 0.3, 0.3], 4, deal_share=0.3)
    games = tournament(f, 4, 800, seed=5)
    widths = [(s := head_to_head(games[:n], "b1", "b2", match_of=match_of)).high - s.low for n in (24, 100, 400, 800)]
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < widths[0] / 4


def test_a_clear_field_is_separated_in_order_with_rank_ranges():
    f = field_for_gaps([0.6, 0.6, 0.6], 4)
    games = tournament(f, 4, 200, seed=2)
    rk = ranking_confidence(games, match_of=match_of, resamples=300, seed=1)
    assert [b.bot for b in rk.bots] == ["b1", "b2", "b3", "b4"]
    assert all(n.separated and n.status == "separated" and n.p_upper_better > 0.99 for n in rk.neighbours)
    assert all(b.rank_low == b.rank == b.rank_high for b in rk.bots)
    assert all(b.low < b.mean_place < b.high for b in rk.bots)
    json.dumps(rk.to_json())


def test_neighbours_in_a_given_order_and_a_reversed_pair():
    f = field_for_gaps([0.6, 0.6], 3)
    games = tournament(f, 3, 120, seed=3)
    rk = ranking_confidence(games, ["b2", "b1", "b3", "nobody"], match_of=match_of, rank_ranges=False)
    assert [b.bot for b in rk.bots] == ["b2", "b1", "b3"]  # a bot without games gets no line
    first, second = rk.neighbours
    assert (first.upper, first.lower, first.ahead, first.separated, first.status) == ("b2", "b1", "b1", False, "open")
    assert first.p_upper_better < 0.01
    assert (second.upper, second.lower, second.separated) == ("b1", "b3", True)
    assert all((b.rank_low, b.rank_high) == (b.rank, b.rank) for b in rk.bots)  # no bootstrap asked


def test_the_bootstrap_is_deterministic_given_the_seed():
    f = field_for_gaps([0.2, 0.2, 0.2], 4, deal_share=0.3)
    games = tournament(f, 4, 120, seed=4)
    run = lambda seed: ranking_confidence(games, match_of=match_of, method="bootstrap", resamples=200,  # noqa: E731
                                          seed=seed).to_json()
    assert run(7) == run(7)
    assert run(7) != run(8)
    boot = head_to_head(games, "b1", "b4", match_of=match_of, method="bootstrap", resamples=400, seed=1)
    normal = head_to_head(games, "b1", "b4", match_of=match_of)
    assert boot.mean == normal.mean and abs(boot.low - normal.low) < 0.25
    with pytest.raises(ValueError, match="unknown method"):
        head_to_head(games, "b1", "b4", method="jackknife")  # type: ignore[arg-type]


def test_crosstable_covers_every_pair_in_order():
    table = crosstable(SMALL, match_of=by_match)
    assert isinstance(table, Crosstable) and table.bots == ("a", "b", "c")
    assert [(p.a, p.b) for p in table.pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert table.pair("b", "a") == table.pair("a", "b").flipped()
    assert table.pair("a", "b") == head_to_head(SMALL, "a", "b", match_of=by_match)
    assert all(isinstance(p, PairStats) for p in table.pairs)
    with pytest.raises(KeyError):
        table.pair("a", "z")
    back = json.loads(json.dumps(table.to_json()))
    assert back["pairs"][0]["a_ahead"] == 2 and back["seats"][0]["bot"] == "a"


def test_per_seat_results():
    rows = {(s.bot, s.players, s.seat): s for s in seat_stats(SMALL)}
    a0 = rows[("a", 3, 0)]
    assert (a0.games, a0.wins, a0.mean_place, a0.win_rate) == (2, 2, 1.0, 1.0)
    assert rows[("a", 3, 1)].mean_place == 3.0
    # A shared first place is nobody's win, as on the leaderboard.
    assert rows[("a", 2, 0)].wins == 0 and rows[("b", 2, 1)].wins == 0
    assert crosstable(SMALL).seats_of("c") == (rows[("c", 3, 1)], rows[("c", 3, 2)])


@pytest.mark.parametrize(("p", "df", "value"), [
    (0.975, 1, 12.7062047), (0.975, 2, 4.3026527), (0.975, 3, 3.1824463), (0.975, 10, 2.2281389),
    (0.975, 30, 2.0422725), (0.995, 5, 4.0321430), (0.95, 120, 1.6576509), (0.975, 1000, 1.9623391),
])
def test_student_t_quantiles(p, df, value):
    assert t_quantile(p, df) == pytest.approx(value, abs=2e-6)
    assert t_quantile(1 - p, df) == pytest.approx(-value, abs=2e-6)
    assert t_cdf(value, df) == pytest.approx(p, abs=1e-6)


def test_student_t_cdf():
    assert t_cdf(0.0, 7) == 0.5 and t_cdf(math.inf, 3) == 1.0 and t_cdf(-math.inf, 3) == 0.0
    assert t_cdf(0.7, 3) == pytest.approx(t3_cdf(0.7), abs=1e-12)
    assert t_cdf(-1.3, 4) == pytest.approx(1 - t_cdf(1.3, 4), abs=1e-12)
    with pytest.raises(ValueError):
        t_quantile(1.0, 5)


# --- simulated fields ---------------------------------------------------------------------------

def test_exact_places_agree_with_monte_carlo():
    f = make_field({"a": 0.5, "b": 0.0, "c": 0.0, "d": -0.3}, deal_share=0.4, seat_effects=(0.2, 0.0, -0.1))
    exact, played = expected_places(f, 3), monte_carlo_places(f, 3, 24_000, seed=1)
    assert all(abs(exact[b] - played[b]) < 0.03 for b in f.bots)
    assert sum(exact.values()) == pytest.approx(4 * 2.0)  # every table of 3 hands out places 1-3
    assert pair_gap(f, "a", "d", 3) == pytest.approx(-pair_gap(f, "d", "a", 3))


def test_a_field_for_given_gaps():
    f = field_for_gaps([0.5, 0.16, 0.05], 4, names=["w", "x", "y", "z"], deal_share=0.3)
    places = expected_places(f, 4)
    assert [places[b] for b in "xyz"] == pytest.approx([places["w"] + 0.5, places["w"] + 0.66, places["w"] + 0.71])
    assert f.order() == ("w", "x", "y", "z") and f.deal_share == 0.3
    six = field_for_gaps([0.15] * 5, 4)
    p6 = expected_places(six, 4)
    assert p6["b2"] - p6["b1"] == pytest.approx(0.15) and pair_gap(six, "b1", "b2", 4) > 0.15


def test_simulated_tournaments_are_deterministic_and_rotate_seats():
    f = field_for_gaps([0.3, 0.3, 0.3, 0.3], 4)
    games = tournament(f, 4, 40, seed=9)
    assert games == tournament(f, 4, 40, seed=9) and games != tournament(f, 4, 40, seed=10)
    first_match = [g for g in games if match_of(g) == match_of(games[0])]
    assert len(first_match) == 4
    assert {g.bots.index(b) for g in first_match for b in first_match[0].bots} == {0, 1, 2, 3}
    assert all(g.bots[1:] + g.bots[:1] == h.bots for g, h in zip(first_match, first_match[1:]))


def test_bots_tied_on_mean_place_share_the_ranks_they_tie_for():
    """Two bots whose every resample leaves them level (each first and second equally often in
    every match) have the same rank range, both ranks; the order the bots are listed in decides
    nothing."""
    games = []
    for m in range(6):
        games += [GameOutcome(("a", "b", "c"), (1, 2, 3), f"m{m}:0"), GameOutcome(("b", "a", "c"), (1, 2, 3), f"m{m}:1")]
    for order in (["a", "b", "c"], ["b", "a", "c"]):
        rk = ranking_confidence(games, order, match_of=by_match, resamples=200, seed=3)
        ranges = {b.bot: (b.rank_low, b.rank_high) for b in rk.bots}
        assert ranges == {"a": (1, 2), "b": (1, 2), "c": (3, 3)}


def test_pool_truth_is_the_mean_place_and_the_mean_pair_gap_of_the_pool() -> None:
    """The truth the resampling benchmarks check the intervals and the stop rule against."""
    from arena.ratings.simulate import pool_truth

    games = [GameOutcome(("a", "b", "c"), (1, 2, 3)), GameOutcome(("b", "a"), (1, 2))]
    places, gaps = pool_truth(games)
    assert places == {"a": 1.5, "b": 1.5, "c": 3.0}
    assert gaps[("a", "b")] == 0.0 and gaps[("a", "c")] == 2.0 and gaps[("c", "b")] == -1.0
    assert ("b", "b") not in gaps
