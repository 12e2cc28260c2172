"""TrueSkill ratings as a pure function of results: convergence on a simulated field, ties,
6-seat games, history, the leaderboard and its formats, and determinism."""

from __future__ import annotations

import ast
import csv
import io
import json
import random
import re
from collections import namedtuple
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import ratings
from arena.errors import UsageError
from arena.cli.output import FORMATS
from arena.cli.leaderboard import COLUMNS, format_board
from arena.results import Board, Pool, board as results_board
from arena.ratings import GameOutcome, Row, leaderboard, make_env, outcomes_from_results, rate

# Hidden strength of each simulated bot: one game's performance is strength + N(0, 1), so
# neighbours differ by ~0.4 places on average at a 4-seat table.
STRENGTHS = {"delta": 0.0, "gamma": 0.4, "beta": 0.8, "alpha": 1.2}
TRUE_ORDER = ["alpha", "beta", "gamma", "delta"]


def simulate(seed: int, games: int, strengths: dict[str, float] = STRENGTHS, seats: int = 4) -> list[GameOutcome]:
    rng = random.Random(seed)
    out = []
    for i in range(games):
        table = rng.sample(sorted(strengths), seats)  # random seats and, below 4 seats, random opponents
        perf = {b: strengths[b] + rng.gauss(0, 1) for b in table}
        order = sorted(table, key=lambda b: -perf[b])
        out.append(GameOutcome(tuple(table), tuple(order.index(b) + 1 for b in table), f"g{i}"))
    return out


def test_environment_parameters():
    env = make_env()
    assert (env.mu, env.sigma, env.beta, env.tau) == (25.0, 25 / 3, 25 / 6, 0.0)
    assert 0.01 <= env.draw_probability <= 0.05
    assert make_env(0.1).draw_probability == 0.1


@pytest.mark.parametrize("seed", range(5))
def test_a_simulated_four_bot_field_is_ranked_in_order(seed):
    games = simulate(seed, 300)
    rows = leaderboard(rate(games, make_env()), games)
    assert [r.bot for r in rows] == TRUE_ORDER
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert all(r.games == 300 for r in rows)
    assert rows[0].mean_place < rows[-1].mean_place


@pytest.mark.parametrize("seed", range(3))
def test_three_seat_tables_drawn_from_four_bots_are_ranked_in_order(seed):
    # 39 of seeds 0-39 rank correctly; seed 11 deals gamma and delta the same mean place
    # (2.288 vs 2.289), where no rating could tell them apart.
    games = simulate(seed, 400, seats=3)
    assert [r.bot for r in leaderboard(rate(games, make_env()), games)] == TRUE_ORDER


def test_the_rating_settles_because_tau_is_zero():
    table = rate(simulate(3, 300), make_env())
    for bot in STRENGTHS:
        sigmas = [p.sigma for p in table.history if p.bot == bot]
        assert all(b <= a + 1e-12 for a, b in zip(sigmas, sigmas[1:])), "sigma grew: tau is not 0"
        assert sigmas[-1] < 1.0


def test_a_tie_for_first():
    table = rate([GameOutcome(("a", "b", "c"), (1, 1, 3))], make_env())
    a, b, c = (table.ratings[x] for x in "abc")
    # TrueSkill's message passing stops at a tolerance (1e-4), so tied seats agree to ~1e-4.
    assert a.mu == pytest.approx(b.mu, abs=1e-3) and a.sigma == pytest.approx(b.sigma, abs=1e-3)
    assert a.mu > 25 > c.mu
    rows = leaderboard(table, [GameOutcome(("a", "b", "c"), (1, 1, 3))])
    assert {r.bot: r.wins for r in rows} == {"a": 0, "b": 0, "c": 0}  # a shared first is nobody's point


def test_a_tie_between_equals_keeps_the_mean_and_gains_certainty():
    table = rate([GameOutcome(("a", "b"), (1, 1))], make_env())
    for r in table.ratings.values():
        assert r.mu == pytest.approx(25.0) and r.sigma < 25 / 3


def test_a_six_seat_game_orders_every_place():
    seats = ("f", "b", "d", "a", "e", "c")
    places = (6, 2, 4, 1, 5, 3)
    table = rate([GameOutcome(seats, places)], make_env())
    mus = [table.ratings[bot].mu for bot in "abcdef"]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == 6
    assert len(table.history) == 6
    tied = rate([GameOutcome(seats, (6, 2, 2, 1, 5, 2))], make_env())
    b, c, d = (tied.ratings[x].mu for x in "bcd")
    assert b == pytest.approx(c, abs=1e-2) and b == pytest.approx(d, abs=1e-2)
    assert tied.ratings["a"].mu > b > tied.ratings["e"].mu > tied.ratings["f"].mu


def test_history_has_one_point_per_seat_per_game():
    games = [GameOutcome(("a", "b"), (1, 2), "g1"), GameOutcome(("a", "b", "c"), (2, 3, 1), "g2"),
             GameOutcome(("c", "d", "a", "b", "e", "f"), (1, 2, 3, 4, 5, 6), "g3")]
    table = rate(games, make_env())
    assert len(table.history) == 2 + 3 + 6
    assert [p.seq for p in table.history] == [1] * 2 + [2] * 3 + [3] * 6
    assert [p.game_id for p in table.history][-6:] == ["g3"] * 6
    last = {p.bot: (p.mu, p.sigma) for p in table.history}
    assert last == {bot: (r.mu, r.sigma) for bot, r in table.ratings.items()}


def test_bad_outcomes_are_refused():
    with pytest.raises(ValueError, match="rated against itself"):
        GameOutcome(("a", "a"), (1, 2))
    with pytest.raises(ValueError, match="2-6 bots"):
        GameOutcome(tuple("abcdefg"), (1, 2, 3, 4, 5, 6, 7))
    with pytest.raises(ValueError, match="2-6 bots"):
        GameOutcome(("a", "b"), (1,))
    with pytest.raises(ValueError, match="game g7: places must be from 1 to 2"):
        GameOutcome(("a", "b"), (1, 3), "g7")


def test_outcomes_from_result_rows_group_games_and_skip_self_play_and_unplayed_games():
    """Self-play cannot be rated; a game where every seat forfeited (no bot started) says nothing
    about skill, while one where only some seats forfeited is rated as usual."""
    R = namedtuple("R", "game_id seat bot place forfeited", defaults=(False,))
    rows = [R("g1", 0, "a", 2), R("g1", 1, "b", 1), R("g2", 0, "a", 1), R("g2", 1, "a", 2),
            R("g3", 0, "c", 1), R("g3", 1, "b", 1), R("g3", 2, "a", 3),
            R("g4", 0, "a", 1, True), R("g4", 1, "b", 1, True),
            R("g5", 0, "a", 2, True), R("g5", 1, "b", 1)]
    assert outcomes_from_results(rows) == [
        GameOutcome(("a", "b"), (2, 1), "g1"), GameOutcome(("c", "b", "a"), (1, 1, 3), "g3"),
        GameOutcome(("a", "b"), (2, 1), "g5")]
    assert outcomes_from_results([]) == []


def test_recomputing_gives_the_same_numbers():
    games = simulate(5, 200)
    first = rate(games, make_env())
    again = rate(list(games), make_env())
    assert first.history == again.history
    assert {b: (r.mu, r.sigma) for b, r in first.ratings.items()} == {b: (r.mu, r.sigma) for b, r in again.ratings.items()}
    # The environment is only read, so one env can serve many computations.
    env = make_env()
    assert rate(games, env).history == rate(games, env).history == first.history
    assert leaderboard(first, games) == leaderboard(again, games)


def test_the_order_of_the_games_changes_the_numbers():
    """Why the store must hand results over in a fixed order (schedule order, not commit order;
    see test_storage.test_ratings_do_not_depend_on_commit_order): the same games in another
    order give other ratings, even with tau = 0."""
    games = simulate(5, 60)
    forward = rate(games, make_env()).ratings
    backward = rate(games[::-1], make_env()).ratings
    assert forward.keys() == backward.keys()
    assert any(abs(forward[b].mu - backward[b].mu) > 0.1 for b in forward)


def test_ratings_imports_no_storage():
    tree = ast.parse(Path(ratings.__file__).read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not any("storage" in m or "sqlite" in m for m in imported), imported


@settings(max_examples=150)
@given(st.lists(
    st.integers(2, 6).flatmap(lambda n: st.tuples(
        st.permutations(list("abcdefgh")).map(lambda p: tuple(p[:n])),
        st.lists(st.integers(1, n), min_size=n, max_size=n).map(tuple),
    )),
    max_size=40,
))
def test_any_sequence_of_games_rates(games):
    outcomes = [GameOutcome(bots, places) for bots, places in games]
    table = rate(outcomes, make_env())
    assert len(table.history) == sum(len(o.bots) for o in outcomes)
    for bot in table.ratings:
        sigmas = [p.sigma for p in table.history if p.bot == bot]
        assert all(b <= a + 1e-9 for a, b in zip([25 / 3, *sigmas], sigmas))
    rows = leaderboard(table, outcomes)
    assert [r.score for r in rows] == sorted((r.score for r in rows), reverse=True)


def test_an_upset_after_long_dominance_does_not_break_the_maths():
    games = [GameOutcome(tuple("abcdef"), (1, 2, 3, 4, 5, 6))] * 1000
    games += [GameOutcome(tuple("abcdef"), (6, 5, 4, 3, 2, 1)), GameOutcome(tuple("abcdef"), (1,) * 6)]
    table = rate(games, make_env())
    assert all(r.sigma > 0 for r in table.ratings.values())


# --- leaderboard and formats -------------------------------------------------------------------


FAULTS = {"delta": {"timeout": 2, "crash": 1}, "nobody": {"crash": 9}}


def board() -> list[Row]:
    games = simulate(2, 120)
    return leaderboard(rate(games, make_env()), games, FAULTS)


def shown(games: list[GameOutcome] | None = None) -> Board:
    """The board the CLI prints: the same leaderboard with its intervals (arena.results)."""
    games = simulate(2, 120) if games is None else games
    return results_board(Pool(tuple(games), faults=FAULTS))


def test_leaderboard_columns_and_order():
    rows = board()
    # the table's columns: the leaderboard's, with how sure each place is among them
    assert [f.name for f in fields(Row)] == [c for c in COLUMNS if c not in ("ranks", "place_95", "p_next", "next")]
    assert [r.bot for r in shown().rows] == [r.bot for r in rows]
    assert [r.bot for r in rows] == TRUE_ORDER
    for r in rows:
        assert r.score == pytest.approx(r.mu - 3 * r.sigma)
        assert 1 <= r.mean_place <= 4 and 0 <= r.wins <= r.games == 120
    assert rows[-1].faults == {"crash": 1, "timeout": 2} and rows[0].faults == {}
    assert sum(r.wins for r in rows) <= 120


def test_equal_scores_are_ordered_by_name():
    games = [GameOutcome(("zed", "amy"), (1, 1)), GameOutcome(("bob", "cat"), (1, 1))]
    assert [r.bot for r in leaderboard(rate(games, make_env()), games)] == ["amy", "bob", "cat", "zed"]


def test_csv_parses_back():
    rows = shown().rows
    parsed = list(csv.DictReader(io.StringIO(format_board(shown(), "csv"))))
    assert list(parsed[0]) == list(COLUMNS)
    for row, line in zip(rows, parsed, strict=True):
        assert (int(line["rank"]), line["bot"], int(line["games"]), int(line["wins"])) == (
            row.rank, row.bot, row.games, row.wins)
        assert (float(line["score"]), float(line["mu"]), float(line["sigma"]), float(line["mean_place"])) == (
            row.score, row.mu, row.sigma, row.mean_place)
        faults = {} if line["faults"] == "-" else dict(
            (k, int(v)) for k, v in (item.split(":") for item in line["faults"].split()))
        assert faults == row.faults
        assert line["ranks"] == (str(row.rank_low) if row.rank_low == row.rank_high
                                 else f"{row.rank_low}-{row.rank_high}")
        assert line["place_95"] == f"{row.mean_place_low!r}-{row.mean_place_high!r}"
        assert line["p_next"] == ("-" if row.p_better_than_next is None else repr(row.p_better_than_next))


def test_json_loads_back():
    rows = shown().rows
    assert json.loads(format_board(shown(), "json")) == [r.to_json() for r in rows]
    assert {f.name for f in fields(Row)} <= set(rows[0].to_json())  # the leaderboard's fields, and more


def test_markdown_has_a_header_row():
    rows = shown().rows
    lines = format_board(shown(), "markdown").splitlines()
    assert [c.strip() for c in lines[0].strip("|").split("|")] == list(COLUMNS)
    assert re.fullmatch(r"\|(-+:?\|)+", lines[1]) and lines[1].count("|") == len(COLUMNS) + 1
    assert len(lines) == 2 + len(rows)
    assert all(line.count("|") == len(COLUMNS) + 1 for line in lines)
    assert "timeout:2" in lines[-1]


def test_markdown_escapes_a_pipe_in_a_name():
    games = [GameOutcome(("a|b", "c"), (1, 2))]
    lines = format_board(shown(games), "markdown").splitlines()
    assert "a\\|b" in lines[2] and lines[2].replace("\\|", "").count("|") == len(COLUMNS) + 1


def test_text_table_is_aligned():
    rows = shown().rows
    lines = format_board(shown(), "table").splitlines()
    assert lines[0].split() == list(COLUMNS) and len(lines) == 1 + len(rows)
    # Names line up under "bot"; numbers end under the end of their header.
    assert {line.index(r.bot) for line, r in zip(lines[1:], rows)} == {lines[0].index("bot")}
    end = lines[0].index("score") + len("score")
    assert all(line[end - 1].isdigit() and line[end] == " " for line in lines[1:])


def test_every_format_renders_and_an_unknown_one_says_which_exist():
    for fmt in FORMATS:
        assert "alpha" in format_board(shown(), fmt)
    with pytest.raises(UsageError, match="unknown format 'xml'; choose one of: table, csv, json, markdown"):
        format_board(shown(), "xml")
