"""Tournaments that stop when they know (``[stop]``, ``arena run --stop``), and tournaments that
grow (``games``/``rounds``/``max_games`` raised): real runs of the bundled bots through the CLI."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import ConfigError
from arena.storage import open_store
from arena.tournament import Tournament
from arena.tournament.file import load_tournament
from arena.tournament.formats import get_format

from common import BOT_DIR, RANDOM, ROOT

# Runs here are compared game for game with runs on other databases, and each database makes its
# own deal key: they share one.
pytestmark = pytest.mark.usefixtures("shared_deal_key")

runner = CliRunner()
HEURISTIC = str(BOT_DIR / "reactor_heuristic.py")


def tournament(tmp_path: Path, bots: dict[str, str], *, name: str = "t", seats: int = 2, extra: str = "",
               file: str = "t.toml") -> Path:
    """A Reactor tournament file of ``{name: path}`` without a sandbox."""
    path = tmp_path / file
    path.write_text(f'name = "{name}"\ngame = "reactor"\nseats = {seats}\nseed = 3\n{extra}\n'
                    '[sandbox]\nmode = "none"\n'
                    + "".join(f'[[bots]]\nname = "{n}"\npath = "{p}"\n' for n, p in bots.items()))
    return path


def run(*args: str) -> str:
    result = runner.invoke(app, ["run", *args])
    assert result.exit_code == 0, result.output
    return result.output


def games_in(db: Path) -> dict[str, tuple]:
    """Every stored game: its seats' bots and places, by game id."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT game_id, seat, bot, place FROM results ORDER BY game_id, seat").fetchall()
    out: dict[str, list] = {}
    for game_id, seat, bot, place in rows:
        out.setdefault(game_id, []).append((bot, place))
    return {k: tuple(v) for k, v in out.items()}


def stopped_after(output: str) -> int:
    found = re.search(r"stopped: every neighbouring pair is settled after (\d+) games", output)
    assert found, output
    return int(found.group(1))


def test_a_clear_field_stops_early_and_an_extended_one_resumes_to_the_same_games(tmp_path: Path) -> None:
    """Heuristic against random heads-up (0.6 mean places apart at 2 seats): settled after a few
    blocks, far below max_games.  The same tournament stopped at a small max_games and then
    extended (max_games raised) plays on to exactly the games and the stop of the one run."""
    spec = tournament(tmp_path, {"heuristic": HEURISTIC, "random": RANDOM},
                      extra='[stop]\nrule = "settled"\nmax_games = 300')
    whole = tmp_path / "whole.db"
    out = run(str(spec), "--db", str(whole))
    n = stopped_after(out)
    assert "heuristic > random  separated, mean place difference +" in out
    stored = games_in(whole)
    assert len(stored) == n < 300 and n % 2 == 0  # whole blocks: both seat rotations of the table
    assert Counter(seats[0][0] for seats in stored.values()) == {"heuristic": n // 2, "random": n // 2}
    again = run(str(spec), "--db", str(whole))  # a stopped tournament plays nothing more
    assert f"0 games played now, {n} already stored" in again and stopped_after(again) == n

    cut = tmp_path / "cut.db"
    early = run(str(spec), "--db", str(cut), "--max-games", "4")
    # After 4 games either bot may be ahead by mean place, the order the pairs are named in.
    assert re.search(r"stopped: reached max_games = 4; unresolved: (heuristic>random|random>heuristic)", early)
    assert re.search(r"(heuristic > random|random > heuristic)  unresolved", early)
    assert len(games_in(cut)) == 4
    with open_store(str(cut)) as store:  # the decision is kept with the tournament
        stopped = store.tournament("t")
        assert stopped.status == "finished" and stopped.stop is not None
        assert stopped.stop["reason"].startswith("reached max_games = 4") and stopped.stop["games"] == 4
        assert [p["status"] for p in stopped.stop["pairs"]] == ["open"]
    extended = run(str(spec), "--db", str(cut))  # max_games back to the file's 300
    assert f"{n - 4} games played now, 4 already stored" in extended and stopped_after(extended) == n
    assert games_in(cut) == stored
    with open_store(str(cut)) as store, open_store(str(whole)) as one:
        assert store.tournament("t").stop == one.tournament("t").stop
        assert [p["status"] for p in one.tournament("t").stop["pairs"]] == ["separated"]


def test_a_field_of_equals_runs_to_max_games_and_names_the_open_pair(tmp_path: Path) -> None:
    """Two copies of the random bot can not be ordered: the run stops at max_games, at the end of
    a block (a third game would leave one bot a seat short), and says which pair stayed open.
    The flag works on a file without a [stop] table."""
    spec = tournament(tmp_path, {"a": RANDOM, "b": RANDOM})
    db = tmp_path / "a.db"
    out = run(str(spec), "--db", str(db), "--stop", "settled", "--max-games", "5", "--standings-every", "2")
    assert re.search(r"stopped: reached max_games = 5; unresolved: (a>b|b>a)", out), out
    assert len(games_in(db)) == 6
    assert "standings after 2 games (by mean place" in out


def test_the_stop_rule_needs_a_maximum_and_reads_its_fields(tmp_path: Path) -> None:
    spec = tournament(tmp_path, {"a": RANDOM, "b": RANDOM})
    for flags, words in ((["--stop", "settled"], "--max-games N"), (["--stop", "sometimes"], "--stop must be one of")):
        result = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(spec), "--db", str(tmp_path / "x.db"),
                                 *flags], capture_output=True, text=True, cwd=ROOT)
        assert result.returncode == 2 and result.stderr.startswith("error: ") and words in result.stderr, result
    assert not (tmp_path / "x.db").exists()
    for table, where in (('rule = "sometimes"', "stop.rule"), ('rule = "settled"', "stop.max_games"),
                         ('rule = "settled"\nmax_games = 10\nalpha = 1.5', "stop.alpha"),
                         ('rule = "settled"\nmax_games = 10\ndelta = 0', "stop.delta"),
                         ('rule = "settled"\nmax_games = 0', "stop.max_games"),
                         ("colour = 1", "stop.colour")):
        bad = tournament(tmp_path, {"a": RANDOM, "b": RANDOM}, extra=f"[stop]\n{table}", file="bad.toml")
        with pytest.raises(ConfigError, match=f"field '{re.escape(where)}'"):
            load_tournament(bad)
    spec = load_tournament(tournament(tmp_path, {"a": RANDOM, "b": RANDOM},
                                      extra='[stop]\nrule = "settled"\nmax_games = 10\nalpha = 0.1', file="ok.toml"))
    assert spec.stop == {"rule": "settled", "alpha": 0.1, "delta": 0.15, "max_games": 10}
    assert load_tournament(tournament(tmp_path, {"a": RANDOM, "b": RANDOM}, file="none.toml")).stop is None
    assert spec.with_stop("none").stop is None and spec.with_stop(max_games=20).stop["max_games"] == 20


@pytest.mark.parametrize("extra", ["", "rotations = false"])
def test_blocks_are_the_schedule_in_seat_balanced_pieces(tmp_path: Path, extra: str) -> None:
    """A round-robin's blocks are its repetitions (every table, every rotation), with the very
    pairings its fixed schedule plays; in each block every bot sits in every seat equally often."""
    spec = load_tournament(tournament(tmp_path, {f"r{i}": RANDOM for i in range(4)}, seats=3,
                                      extra=extra + "\ngames = 6"))
    fmt = get_format(spec.format)(spec)
    blocks = fmt.blocks(lambda: None)  # type: ignore[arg-type,return-value]
    first = [list(next(blocks).pairings) for _ in range(6 if not extra else 2)]
    schedule = [p for r in fmt.rounds(lambda: None) for p in r.pairings]  # type: ignore[arg-type,return-value]
    assert sorted(p.id for b in first for p in b) == sorted(p.id for p in schedule)
    assert {p.id: p for b in first for p in b} == {p.id: p for p in schedule}
    for block in first:
        seats = Counter((bot, s) for p in block for s, bot in enumerate(p.seats))
        assert len(set(seats.values())) == 1 and len(seats) == 4 * 3


def test_a_finished_round_robin_grows_when_games_is_raised(tmp_path: Path) -> None:
    """games 1 -> 2 plays the second repetition, to the games a games = 2 run plays; games back
    to 1 is refused (stored games would fall outside the schedule)."""
    bots = {f"r{i}": RANDOM for i in range(3)}
    db, fresh = tmp_path / "grow.db", tmp_path / "fresh.db"
    run(str(tournament(tmp_path, bots, seats=3, extra="games = 1")), "--db", str(db), "--quiet")
    first = games_in(db)
    assert len(first) == 3
    out = run(str(tournament(tmp_path, bots, seats=3, extra="games = 2", file="u.toml")), "--db", str(db), "--quiet")
    assert "3 games played now, 3 already stored" in out
    run(str(tournament(tmp_path, bots, seats=3, extra="games = 2", file="u.toml")), "--db", str(fresh), "--quiet")
    assert games_in(db) == games_in(fresh) and {k: games_in(db)[k] for k in first} == first
    with open_store(str(db)) as store:
        assert store.tournament("t").status == "finished"
        assert store.tournament("t").spec["games"] == 2
        with pytest.raises(ConfigError, match=r"games: stored 2, file 1 \(a tournament may grow, never shrink\)"):
            Tournament(load_tournament(tournament(tmp_path, bots, seats=3, extra="games = 1")), store)


def test_a_finished_swiss_grows_when_rounds_is_raised(tmp_path: Path) -> None:
    bots = {f"r{i}": RANDOM for i in range(4)}
    db, fresh = tmp_path / "grow.db", tmp_path / "fresh.db"
    swiss = 'format = "swiss"\nrotations = false\nrounds = '
    run(str(tournament(tmp_path, bots, extra=swiss + "1")), "--db", str(db), "--quiet")
    assert len(games_in(db)) == 2
    out = run(str(tournament(tmp_path, bots, extra=swiss + "2", file="u.toml")), "--db", str(db), "--quiet")
    assert "2 games played now, 2 already stored" in out
    run(str(tournament(tmp_path, bots, extra=swiss + "2", file="u.toml")), "--db", str(fresh), "--quiet")
    assert games_in(db) == games_in(fresh)


def test_a_run_interrupted_inside_a_block_resumes_to_the_stop_of_one_run(tmp_path: Path) -> None:
    """Stopped by Ctrl-C after the first game of the second block (blocks of 3: one table of 3
    under its 3 rotations), the rerun finishes that block, decides only on whole blocks, and
    stops where an uninterrupted run stops, with the same games."""
    text = tournament(tmp_path, {f"r{i}": RANDOM for i in range(3)}, seats=3,
                      extra='[stop]\nrule = "settled"\nmax_games = 6')
    spec = load_tournament(text)
    whole, cut = tmp_path / "whole.db", tmp_path / "cut.db"
    with open_store(str(whole)) as store:
        one = Tournament(spec, store).run()
    assert one.stop is not None and one.stop.games == 6 and one.played == 6

    def interrupt(progress) -> None:
        if progress.games_done == 4:
            raise KeyboardInterrupt

    with open_store(str(cut)) as store:
        with pytest.raises(KeyboardInterrupt):
            Tournament(spec, store).run(on_progress=interrupt)
        assert len(games_in(cut)) == 4 and store.tournament("t").status == "running"
        again = Tournament(spec, store).run()
    assert again.played == 2 and again.skipped == 4
    assert games_in(cut) == games_in(whole) and again.stop == one.stop


def test_a_gauntlet_under_a_stop_rule_plays_in_blocks_up_to_max_games(tmp_path: Path) -> None:
    """A gauntlet with ``[stop]`` is judged after each repetition of its tables, and ``max_games``
    is its length (it used to be one block of the whole schedule: judged once, max_games unread).
    The first block is the gauntlet's own first repetition: the same pairings, ids and deals."""
    spec = tournament(tmp_path, {"mine": HEURISTIC, "p1": RANDOM, "p2": RANDOM},
                      extra='format = "gauntlet"\ncandidates = ["mine"]\n[stop]\nrule = "settled"\nmax_games = 12')
    db = tmp_path / "g.db"
    out = run(str(spec), "--db", str(db))
    stored = games_in(db)
    assert len(stored) == 12 and all("mine" in {bot for bot, _ in seats} for seats in stored.values())
    assert "stopped: reached max_games = 12" in out or re.search(r"stopped: every neighbouring pair is settled", out)
    # 2 tables (mine with p1, mine with p2) x 2 rotations = 4 games a block: 3 whole blocks.
    assert {gid.rsplit("/", 1)[-1].split("-")[0] for gid in stored} == {"r1", "r2", "r3"}
    plain = tmp_path / "plain.toml"
    plain.write_text(spec.read_text().replace('[stop]\nrule = "settled"\nmax_games = 12', "").replace(
        'name = "t"', 'name = "t"\ngames = 3'))
    one = tmp_path / "one.db"
    run(str(plain), "--db", str(one))
    assert games_in(one) == stored  # the blocks are the schedule's repetitions, in its order of deals
