"""`arena standings`, `h2h`, `crosstable`, `ratings` (intervals, --history, --exclude-faults) and
`games` (combined filters, --per-seat) through the CLI runner, on real stored tournaments: a
Swiss of five random bots, and a round-robin where one bot crashes in every game."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from arena import results
from arena.cli import app
from arena.storage import open_store

from common import RANDOM, ROOT

CRASHER = str(ROOT / "tests" / "bots" / "zoo_crash_mid.py")  # crashes on its third decision, every game
runner = CliRunner()


def out(*args: str) -> str:
    """stdout of a command that must succeed."""
    done = runner.invoke(app, list(args))
    assert done.exit_code == 0, done.output
    return done.stdout


def fails(status: int, *args: str) -> str:
    """The one-line error of a command that must fail with ``status`` (the real entry point,
    which turns errors into a line and a status)."""
    done = subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == status, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and done.stdout == "", done
    return lines[0]


@pytest.fixture(scope="module")
def swiss(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A stored Swiss: five random bots, tables of 2, three rounds (one bye a round): 12 games."""
    folder = tmp_path_factory.mktemp("swiss")
    spec = folder / "sw.toml"
    spec.write_text('name = "sw"\ngame = "reactor"\nformat = "swiss"\nseats = 2\nrounds = 3\nseed = 3\n'
                    '[sandbox]\nmode = "none"\n'
                    + "".join(f'[[bots]]\nname = "p{i}"\npath = "{RANDOM}"\n' for i in range(5)))
    db = str(folder / "sw.db")
    done = runner.invoke(app, ["run", str(spec), "--db", db, "--quiet"])
    assert done.exit_code == 0, done.output
    # `arena run` ends with the standings, then the ratings
    assert "tournament sw (swiss, finished): 3 of 3 rounds; ranked by points, buchholz" in done.stdout
    assert done.stdout.index("ranked by") < done.stdout.index("ratings:") < done.stdout.index("p_next")
    return db


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A stored round-robin of two random bots and a crasher at tables of 2: 6 games, the
    crasher's 4 each with a crash fault (it is never disqualified: one game a match)."""
    folder = tmp_path_factory.mktemp("faulty")
    spec = folder / "f.toml"
    spec.write_text('name = "f"\ngame = "reactor"\nseats = 2\nseed = 1\n[sandbox]\nmode = "none"\n'
                    f'[[bots]]\nname = "crasher"\npath = "{CRASHER}"\n'
                    + "".join(f'[[bots]]\nname = "p{i}"\npath = "{RANDOM}"\n' for i in range(2)))
    db = str(folder / "f.db")
    assert runner.invoke(app, ["run", str(spec), "--db", db, "--quiet"]).exit_code == 0
    return db


def per_seat(db: str, *filters: str) -> list[dict]:
    return json.loads(out("games", "--db", db, "--per-seat", "--json", "--limit", "1000", *filters))


def test_standings_of_a_swiss(swiss: str) -> None:
    with open_store(swiss) as store:
        expected = results.standings(store, "sw")
    assert json.loads(out("standings", "sw", "--db", swiss, "--json")) == expected.to_json()
    text = out("standings", "sw", "--db", swiss)
    assert [line.split()[1] for line in text.splitlines()[2:7]] == [r.bot for r in expected.rows]
    assert text.count(" bye ") == 3 and "bots and their points" in text
    rows = list(csv.DictReader(io.StringIO(out("standings", "sw", "--db", swiss, "--format", "csv"))))
    assert [r["bot"] for r in rows] == [r.bot for r in expected.rows]
    assert list(rows[0]) == ["rank", "bot", "points", "buchholz", "median_buchholz", "rounds", "byes", "games",
                             "wins", "mean_place"]
    # the points: each bot's mean share of its tables' points, one table a round (at most 1 a round)
    assert sum(float(r["points"]) for r in rows) == pytest.approx(2 * 3 * 1.0)  # 2 tables x 3 rounds x 1 point
    assert all(int(r["byes"]) == 3 - int(r["rounds"]) for r in rows)
    assert "does-not-exist" in fails(1, "standings", "does-not-exist", "--db", swiss)


def test_standings_of_a_round_robin_have_no_swiss_tiebreaks(faulty: str) -> None:
    rows = list(csv.DictReader(io.StringIO(out("standings", "f", "--db", faulty, "--format", "csv"))))
    assert list(rows[0]) == ["rank", "bot", "points", "rounds", "games", "wins", "mean_place"]
    assert rows[-1]["bot"] == "crasher" and rows[-1]["points"] == "0.0"  # it forfeits every game it plays


def test_h2h_counts_what_the_games_show(swiss: str) -> None:
    seats = per_seat(swiss)
    by_game: dict[str, dict[str, int]] = {}
    for s in seats:
        by_game.setdefault(s["game_id"], {})[s["bot"]] = s["place"]
    a, b = next((x, y) for g in by_game.values() for x, y in [sorted(g)])  # two bots that met
    shared = [g for g in by_game.values() if a in g and b in g]
    record = json.loads(out("h2h", a, b, "--db", swiss, "--json"))
    assert record["games"] == len(shared)
    assert record["a_ahead"] == sum(g[a] < g[b] for g in shared) and record["b_ahead"] == sum(g[b] < g[a] for g in shared)
    assert record["mean"] == pytest.approx(sum(g[b] - g[a] for g in shared) / len(shared))
    assert record["matches"] == 1  # a Swiss table's two rotations are one unit of evidence
    assert {s["bot"] for s in record["seats"]} == {a, b}
    flipped = json.loads(out("h2h", b, a, "--db", swiss, "--json"))
    assert (flipped["a"], flipped["a_ahead"], flipped["p_a_better"]) == (b, record["b_ahead"],
                                                                         pytest.approx(1 - record["p_a_better"]))
    text = out("h2h", a, b, "--db", swiss)
    assert f"{a} vs {b}: {len(shared)} games at 1 table;" in text and "95% interval" in text
    assert len(list(csv.reader(io.StringIO(out("h2h", a, b, "--db", swiss, "--format", "csv"))))) == 2
    assert "two different bots" in fails(2, "h2h", a, a, "--db", swiss)
    assert "nobody" in fails(1, "h2h", a, "nobody", "--db", swiss)


def test_crosstable_has_every_pair_once(swiss: str) -> None:
    pairs = list(csv.DictReader(io.StringIO(out("crosstable", "--db", swiss, "--format", "csv"))))
    assert len(pairs) == 10 and len({frozenset((p["a"], p["b"])) for p in pairs}) == 10
    table = json.loads(out("crosstable", "--db", swiss, "--tournament", "sw", "--json"))
    assert len(table["pairs"]) == 10 and {s["bot"] for s in table["seats"]} == {f"p{i}" for i in range(5)}
    for p in table["pairs"]:  # each pair as `arena h2h` has it
        alone = json.loads(out("h2h", p["a"], p["b"], "--db", swiss, "--json"))
        assert {k: v for k, v in alone.items() if k != "seats"} == p
    text = out("crosstable", "--db", swiss).splitlines()
    assert text[0].split() == ["#", "bot", "1", "2", "3", "4", "5"]
    ratings_order = [r["bot"] for r in json.loads(out("ratings", "--db", swiss, "--json"))]
    assert [line.split()[1] for line in text[1:6]] == ratings_order
    assert "mean place advantage" in "\n".join(text) and "players" in "\n".join(text)


def test_ratings_show_intervals_and_separation(swiss: str) -> None:
    rows = json.loads(out("ratings", "--db", swiss, "--json"))
    for upper, lower in zip(rows, rows[1:]):
        assert 0.0 <= upper["p_better_than_next"] <= 1.0 and upper["next_status"] in ("separated", "tied", "open")
    assert rows[-1]["p_better_than_next"] is None
    for r in rows:
        assert 1.0 <= r["mean_place_low"] <= r["mean_place"] <= r["mean_place_high"] <= 2.0
        assert 1 <= r["rank_low"] <= r["rank_high"] <= 5
    table = out("ratings", "--db", swiss).splitlines()
    assert table[0].split() == ["rank", "bot", "score", "mu", "sigma", "ranks", "games", "wins", "mean_place",
                                "place_95", "p_next", "next", "faults"]
    # 12 random games say nothing sure: no pair is separated, and each line says so
    assert all(line.split()[11] in ("open?", "tied") for line in table[1:-1]) and table[-1].split()[11] == "-"


def test_ratings_history_table_plot_and_data(swiss: str) -> None:
    text = out("ratings", "--history", "--db", swiss)
    lines = text.splitlines()
    assert lines[0].split() == ["game", *[r["bot"] for r in json.loads(out("ratings", "--db", swiss, "--json"))]]
    assert [line.split()[0] for line in lines[1:13]] == [str(n) for n in range(1, 13)]
    assert "score (mu - 3 sigma): A " in text and " +---" in text and "game 12" in text
    data = json.loads(out("ratings", "--history", "p1", "--db", swiss, "--json"))
    assert data["bots"] == ["p1"] and data["games"] == 12 and {r["bot"] for r in data["rows"]} == {"p1"}
    final = next(r for r in json.loads(out("ratings", "--db", swiss, "--json")) if r["bot"] == "p1")
    assert data["rows"][-1]["mu"] == final["mu"]
    wide = list(csv.DictReader(io.StringIO(out("ratings", "--history", "p1", "p2", "--db", swiss,
                                               "--format", "csv"))))
    assert len(wide) == 12 and list(wide[0])[0] == "game" and sorted(wide[0]) == ["game", "p1", "p2"]
    assert "needs --history" in fails(2, "ratings", "p1", "--db", swiss)
    assert "nobody" in fails(1, "ratings", "--history", "nobody", "--db", swiss)


def test_ratings_can_leave_out_games_with_faults(faulty: str) -> None:
    honest = json.loads(out("ratings", "--db", faulty, "--json"))
    assert {r["bot"]: r["games"] for r in honest} == {"crasher": 4, "p0": 4, "p1": 4}
    assert next(r for r in honest if r["bot"] == "crasher")["faults"] == {"crash": 4}
    done = runner.invoke(app, ["ratings", "--db", faulty, "--json", "--exclude-faults"])
    assert done.exit_code == 0, done.output
    clean = json.loads(done.stdout)
    assert {r["bot"]: r["games"] for r in clean} == {"p0": 2, "p1": 2}  # only their own table is left
    assert "4 games with a fault or forfeit left out (--exclude-faults)" in done.stderr


def test_games_filters_combine(swiss: str, faulty: str) -> None:
    everything = per_seat(swiss)
    games = {s["game_id"] for s in everything}
    assert len(games) == 12 and len(everything) == 24
    both = {s["game_id"] for s in per_seat(swiss, "--bot", "p0", "--bot", "p1")}
    expected = {g for g in games if {s["bot"] for s in everything if s["game_id"] == g} >= {"p0", "p1"}}
    assert both == expected
    only_p0 = {s["game_id"] for s in per_seat(swiss, "--bot", "p0")}
    assert both <= only_p0 and len(only_p0) > len(both)
    round2 = per_seat(swiss, "--round", "2", "--bot", "p0")
    assert {s["round"] for s in round2} <= {2} and {s["game_id"] for s in round2} == {
        s["game_id"] for s in everything if s["round"] == 2 and s["bot"] == "p0"}
    assert per_seat(swiss, "--faults") == [] and per_seat(swiss, "--game", "powder-keg") == []
    crashes = per_seat(faulty, "--faults")
    assert len({s["game_id"] for s in crashes}) == 4 and all(
        s["faults"] == (1 if s["bot"] == "crasher" else 0) for s in crashes)
    assert len({s["game_id"] for s in per_seat(faulty, "--faults", "--bot", "p0", "--bot", "p1")}) == 0
    rows = list(csv.DictReader(io.StringIO(out("games", "--db", faulty, "--per-seat", "--format", "csv"))))
    assert list(rows[0]) == ["game_id", "tournament", "game", "round", "table", "seat", "bot", "place", "forfeited",
                             "faults"]
    assert len(rows) == 12 and {r["forfeited"] for r in rows if r["bot"] == "crasher"} == {"true"}
    listing = out("games", "--db", swiss, "--bot", "p0", "--bot", "p1").splitlines()
    assert len(listing) == 1 + len(both)
