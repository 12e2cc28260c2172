"""Tournaments end to end: files, scheduling into matches, storage, resume after kill -9, ratings."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from arena.execution import affinity
from arena.errors import ConfigError
from arena.storage import Store, open_store
from arena.tournament.formats import Pairing
from arena.referee.standing import disqualified_seats, out_of_match
from arena.tournament import Tournament, stored_results
from arena.tournament.file import load_tournament

from common import RANDOM_PATH as RANDOM
from common import PATIENCE_S, ROOT, as_released, wait_until
ARENA = [sys.executable, "-m", "arena.cli"]


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def random_field(n: int, *, name: str = "t", seats: int = 3, games: int = 1, extra: str = "", sandbox: str = "none") -> str:
    bots = "".join(f'[[bots]]\nname = "r{i}"\npath = "{RANDOM}"\n' for i in range(n))
    return (f'name = "{name}"\ngame = "reactor"\nseats = {seats}\ngames = {games}\nseed = 5\n{extra}\n'
            f'[sandbox]\nmode = "{sandbox}"\n{bots}')


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('game = "reactor"\n[[bots]]\nname = "a"', "name"),
        ('name = "x"\ngame = "chess"\n[[bots]]\nname = "a"', "game"),
        ('name = "x"\ngame = "reactor"\nformat = "knockout"\n[[bots]]\nname = "a"', "format"),
        ('name = "x"\ngame = "reactor"\nseats = 9\n[[bots]]\nname = "a"', "seats"),
        ('name = "x"\ngame = "reactor"\nseats = "four"\n[[bots]]\nname = "a"', "seats"),
        ('name = "x"\ngame = "reactor"\nbots = 3', "bots"),
        ('name = "x"\ngame = "reactor"\ncolour = 3\n[[bots]]\nname = "a"', "colour"),
        ('name = "x"\ngame = "reactor"\n[[bots]]\nname = "a"\npath = "nowhere.py"', "bots[0].path"),
        ('name = "x"\ngame = "reactor"\n[[bots]]\nname = "a"\npath = "."', "bots[0].path"),  # a directory
        ('name = "x"\ngame = "reactor"\n[[bots]]\nname = "a"\npath = "t.toml"', "'bots[0].path': "),  # not a bot
        ('name = "x"\ngame = "reactor"\n[[bots]]\nname = "a"', "'bots': a reactor tournament needs at least 2"),
        ('name = "x"\ngame = "reactor"\nseats = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "a"', "bots"),
        ('name = "x"\ngame = "powder-keg"\nseats = 2\nvariants = ["turbo"]\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "variants"),
        ('name = "x"\ngame = "reactor"\nseats = 2\n[time]\ndecision = -5\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "time.decision"),
        ('name = "x"\ngame = "reactor"\nseats = 2\n[sandbox]\nmemory_mb = "lots"\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "sandbox.memory_mb"),
        ('name = "x"\ngame = "reactor"\nfaults_to_disqualify = 0\nseats = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "faults_to_disqualify"),
        ('name = "x"\ngame = "reactor"\nformat = "swiss"\ngames = 5\nseats = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "games"),
        ('name = "x"\ngame = "reactor"\nmin_seats = 2\nseats = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "min_seats"),
        ('name = "x"\ngame = "reactor"\nseats = 2\n[sandbox]\nmode = "loose"\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "sandbox.mode"),
        ('name = "x"\ngame = "reactor"\nrounds = 3\nseats = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "rounds"),
        ('name = "x"\ngame = "reactor"\nconcurrent = 65\nseats = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "concurrent"),
        ('name = "x"\ngame = "reactor"\nseats = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n[[bots', "TOML"),
        # Upper bounds: a huge limit made every bot crash (a poll's timeout, prlimit's parser)
        # while the run went on, and a huge count promised a run of centuries.
        *[(f'name = "x"\ngame = "reactor"\nseats = 2\n{line}\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', field)
          for line, field in [("[time]\ndecision = 99999999999999", "'time.decision': must be from 1 to 3600000"),
                              ("[time]\ngame = 86400001", "time.game"), ("[time]\nstartup = 600001", "time.startup"),
                              ("[sandbox]\nmemory_mb = 99999999999999", "sandbox.memory_mb"),
                              ("[sandbox]\nprocesses = 100000", "sandbox.processes"),
                              ("games = 100000000000", "'games': must be from 1 to 10000"),
                              ("points = 1000000", "points")]],
        ('name = "x"\ngame = "reactor"\nformat = "swiss"\nrounds = 1000000000\nseats = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"', "rounds"),
    ],
)
def test_malformed_file_names_the_field(tmp_path: Path, text: str, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_tournament(write(tmp_path, text))
    message = str(info.value)
    assert field in message and "\n" not in message


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + random_field(3).encode())
    assert load_tournament(path).name == "t"


def test_a_bot_named_without_a_path_must_be_registered_and_the_error_names_its_field(tmp_path: Path) -> None:
    from arena.errors import UnknownBot

    spec = load_tournament(write(tmp_path, 'name = "x"\ngame = "reactor"\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"'))
    db = tmp_path / "a.db"
    with open_store(str(db)) as store, pytest.raises(UnknownBot, match=r"field 'bots\[0\]': no bot named 'a'.*arena bots add"):
        Tournament(spec, store)


def test_a_name_not_registered_stops_the_run_before_any_bot_is_registered(tmp_path: Path) -> None:
    """Whatever the order of the bots in the file, a typo in a name leaves the database as it was
    (so `arena run` can remove the database it has just created)."""
    from arena.errors import UnknownBot

    text = f'name = "x"\ngame = "reactor"\n[[bots]]\nname = "good"\npath = "{RANDOM}"\n[[bots]]\nname = "typo"'
    db = tmp_path / "a.db"
    with open_store(str(db)) as store:
        with pytest.raises(UnknownBot, match=r"field 'bots\[1\]': no bot named 'typo'"):
            Tournament(load_tournament(write(tmp_path, text)), store)
        assert not any(store.counts().values())


def test_bundled_tournament_files_are_valid() -> None:
    files = sorted((ROOT / "tournaments").glob("*.toml"))
    assert {f.name for f in files} >= {"quickstart-reactor.toml", "quickstart-powder-keg.toml"}
    games_of: dict[str, set[str]] = {}
    for path in files:
        spec = load_tournament(path)
        assert all(b.path is None or b.path.exists() for b in spec.bots)
        for b in spec.bots:
            games_of.setdefault(b.name, set()).add(spec.game)
    # A bot name is registered for one game: the bundled files must all run on one database
    # (the default arena.db), one after the other.
    assert {name: games for name, games in games_of.items() if len(games) > 1} == {}


def results_of(db: Path) -> dict[str, tuple]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT game_id, seat, bot, place FROM results ORDER BY game_id, seat").fetchall()
    out: dict[str, list] = {}
    for game_id, seat, bot, place in rows:
        out.setdefault(game_id, []).append((seat, bot, place))
    return {k: tuple(v) for k, v in out.items()}


def test_round_robin_plays_every_rotation_and_resumes_idempotently(tmp_path: Path) -> None:
    spec = load_tournament(write(tmp_path, random_field(4, games=2)))
    db = tmp_path / "a.db"
    with open_store(str(db)) as store:
        outcome = Tournament(spec, store).run(workers=1)
        assert outcome.errors == []
        # 4 tables of 3 bots, 3 rotations each, 2 repetitions: 24 one-game Reactor matches.
        assert outcome.played == 24 and outcome.skipped == 0
        assert [r.games for r in outcome.leaderboard] == [18, 18, 18, 18]
        again = Tournament(spec, store).run(workers=1)
        assert again.played == 0 and again.skipped == 24
        assert store.tournament("t").status == "finished"


def test_a_tournament_in_memory_runs_its_bots_from_a_folder_of_its_own(tmp_path: Path) -> None:
    """The store says where its bots are written out to run: a database in memory has no folder
    beside it, so it gets a private one (it was .arena-bots in whatever folder the run started
    in), removed when the store closes."""
    spec = load_tournament(write(tmp_path, random_field(3)))
    with open_store(":memory:") as store:
        tournament = Tournament(spec, store)
        cache = store.bot_cache()
        assert all(Path(bot.expose[0]).is_relative_to(cache) for bot in tournament.versions.values())
        outcome = tournament.run(workers=1)
        assert outcome.errors == [] and outcome.played == 3
    assert not cache.exists()


def test_changed_spec_under_same_name_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with open_store(str(db)) as store:
        Tournament(load_tournament(write(tmp_path, random_field(3, games=2))), store)
        # More games grow a tournament (tests/test_stop_run.py); fewer would leave stored games out.
        with pytest.raises(ConfigError, match=r"\(games: stored 2, file 1 \(a tournament may grow, never shrink\)\); "
                                              "rename the tournament"):
            Tournament(load_tournament(write(tmp_path, random_field(3), "u.toml")), store)
        changed = random_field(4, games=1).replace('seed = 5', 'seed = 6')
        with pytest.raises(ConfigError, match=r"\(games: stored 2, file 1 \(a tournament may grow, never shrink\); "
                                              r"seed: stored 5, file 6; bots: stored r0, r1, r2, file r0, r1, r2, r3\)"):
            Tournament(load_tournament(write(tmp_path, changed, "v.toml")), store)


def test_a_file_that_writes_out_defaults_resumes_its_tournament(tmp_path: Path) -> None:
    """Settings written out at their defaults play the same games as settings left out, and
    variants are independent switches: such a file resumes (it was refused as 'other settings')."""
    db = tmp_path / "a.db"
    keg = 'game = "reactor"'
    plain = random_field(3).replace(keg, 'game = "powder-keg"\nvariants = ["short-hands", "simpler-double"]')
    spelled = (random_field(3).replace(keg, 'game = "powder-keg"\nvariants = ["simpler-double", "short-hands"]\n'
                                            'points = 3')
               .replace('mode = "none"', 'mode = "none"\nmemory_mb = 1024\nprocesses = 32'))
    with open_store(str(db)) as store:
        Tournament(load_tournament(write(tmp_path, plain)), store)
        Tournament(load_tournament(write(tmp_path, spelled, "u.toml")), store)  # no ConfigError
        with pytest.raises(ConfigError, match=r"points: stored none, file 2"):
            Tournament(load_tournament(write(tmp_path, spelled.replace("points = 3", "points = 2"), "v.toml")),
                       store)


def test_the_bots_of_a_resumed_tournament_may_be_listed_in_another_order(tmp_path: Path) -> None:
    """The scheduler sorts the field, so the order of [[bots]] changes nothing: a file with its
    bots reordered resumes the tournament (it was refused as 'different: bots')."""
    db = tmp_path / "a.db"
    text = random_field(3)
    head, _, bots = text.partition("[[bots]]")
    entries = ["[[bots]]" + entry for entry in bots.split("[[bots]]")]
    reordered = head + "".join(reversed(entries))
    with open_store(str(db)) as store:
        first = Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1)
        again = Tournament(load_tournament(write(tmp_path, reordered, "u.toml")), store).run(workers=1)
    assert first.played > 0 and (again.played, again.skipped) == (0, first.played)


def test_a_resumed_run_may_change_how_many_games_are_in_play_at_once(shared_deal_key: bytes, tmp_path: Path) -> None:
    """`concurrent` changes how fast a tournament plays, not what: a run interrupted with one
    setting resumes with another (it was refused as 'other settings'), to the same results."""
    db, fresh = tmp_path / "a.db", tmp_path / "b.db"

    def interrupt(progress) -> None:
        if progress.games_done >= 2:
            raise KeyboardInterrupt

    with open_store(str(db)) as store:
        first = Tournament(load_tournament(write(tmp_path, random_field(3, games=2))), store)
        with pytest.raises(KeyboardInterrupt):
            first.run(workers=1, on_progress=interrupt)
        resumed = Tournament(load_tournament(write(tmp_path, random_field(3, games=2, extra="concurrent = 2"),
                                                   "u.toml")), store).run(workers=1)
        assert resumed.errors == [] and resumed.played > 0 and resumed.skipped >= 2
    with open_store(str(fresh)) as store:
        Tournament(load_tournament(write(tmp_path, random_field(3, games=2))), store).run(workers=1)
    assert results_of(db) == results_of(fresh)


def test_a_resumed_match_remembers_faults_in_a_row_and_disqualification(shared_deal_key: bytes, tmp_path: Path) -> None:
    """Faults, point 5: a bot is disqualified after faults_to_disqualify faulty games in a row
    of one match.  A run stopped after such games used to resume the match as if the bot had
    never faulted: it played on (and could win) where an uninterrupted run had it out."""
    flaky = ROOT / "tests" / "bots" / "zoo_flaky.py"
    text = ('name = "dq"\ngame = "powder-keg"\nseats = 3\npoints = 3\nrotations = false\nseed = 3\n'
            'faults_to_disqualify = 2\nconcurrent = 1\n[sandbox]\nmode = "none"\n'
            f'[[bots]]\nname = "flaky"\npath = "{flaky}"\n'
            + "".join(f'[[bots]]\nname = "r{i}"\npath = "{RANDOM}"\n' for i in range(2)))
    spec = load_tournament(write(tmp_path, text))
    reference, db = tmp_path / "ref.db", tmp_path / "a.db"
    with open_store(str(reference)) as store:
        assert Tournament(spec, store).run(workers=1).errors == []

    def interrupt(progress) -> None:
        if progress.games_done >= 2:  # both faulty games stored: the bot is out of the match
            raise KeyboardInterrupt

    with open_store(str(db)) as store:
        with pytest.raises(KeyboardInterrupt):
            Tournament(spec, store).run(workers=1, on_progress=interrupt)
        assert Tournament(spec, store).run(workers=1).errors == []
    assert results_of(db) == results_of(reference)
    with open_store(str(db)) as store:
        games = store.games(tournament="dq", limit=None)
    assert len(games) > 2 and all(disqualified_seats(g.forfeited, g.collateral) == [0]
                               for g in games if g.id.endswith(("-g2", "-g3")))


def test_a_match_where_every_bot_is_disqualified_ends_and_stays_complete(tmp_path: Path) -> None:
    """Faults, point 5: once every seat of a match is disqualified nothing is left to decide.  The
    match went on to its game cap (15 games of two seats to 3 points, nobody playing); it now
    ends, and a resumed run counts it complete from its stored standings instead of opening it
    again."""
    broken = ROOT / "tests" / "bots" / "zoo_crash_start.py"
    text = ('name = "allout"\ngame = "powder-keg"\nseats = 2\npoints = 3\nrotations = false\nseed = 3\n'
            'faults_to_disqualify = 2\n[sandbox]\nmode = "none"\n'
            + "".join(f'[[bots]]\nname = "b{i}"\npath = "{broken}"\n' for i in range(2)))
    spec = load_tournament(write(tmp_path, text))
    db = tmp_path / "a.db"
    with open_store(str(db)) as store:
        first = Tournament(spec, store).run(workers=1)
        assert first.errors == [] and first.played == 2
        seen = []
        again = Tournament(spec, store).run(workers=1, on_progress=lambda progress: seen.append(progress))
        assert again.played == 0 and again.skipped == 2
        assert seen[-1].matches_done == 1 and seen[-1].matches_played == 0  # not opened again
        games = store.games(tournament="allout", limit=None)
    assert len(games) == 2
    assert out_of_match([("fault", "fault")] * 2, 2, 2) == {0, 1}
    assert out_of_match([("fault", "clean"), ("clean", "fault"), ("fault", "clean")], 2, 2) == set()
    assert out_of_match([("neutral", "out")], 2, 2) == {1}


def test_hard_kill_then_resume_equals_uninterrupted_run(shared_deal_key: bytes, tmp_path: Path) -> None:
    """kill -9 at a random moment loses nothing stored; the rerun plays only what is missing."""
    spec_file = write(tmp_path, random_field(4, games=1, name="killme"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    whole = tmp_path / "whole.db"
    subprocess.run([*ARENA, "run", str(spec_file), "--db", str(whole), "--workers", "2", "--quiet"],
                   check=True, env=env, capture_output=True)
    expected = results_of(whole)
    assert len(expected) == 12  # 4 tables x 3 rotations

    cut = tmp_path / "cut.db"
    proc = subprocess.Popen([*ARENA, "run", str(spec_file), "--db", str(cut), "--workers", "2", "--quiet"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stored() -> int:
        try:
            with sqlite3.connect(f"file:{cut}?mode=ro", uri=True, timeout=5) as conn:
                return conn.execute("SELECT count(*) FROM games").fetchone()[0]
        except sqlite3.OperationalError:  # not made yet
            return 0

    # Killed once 4 games are stored, however long that takes (it was killed after 60 s
    # whatever it had stored: on a loaded machine, before it had stored any; issue 16).
    try:
        wait_until(lambda: stored() >= 4 or proc.poll() is not None, "4 games stored", every=0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = results_of(cut)
    assert 4 <= len(partial) < 12, len(partial)
    for game_id, rows in partial.items():
        assert rows == expected[game_id]

    rerun = subprocess.run([*ARENA, "run", str(spec_file), "--db", str(cut), "--workers", "2", "--quiet"],
                           env=env, capture_output=True, text=True, check=True)
    assert f"{12 - len(partial)} games played now, {len(partial)} already stored" in rerun.stdout
    assert results_of(cut) == expected
    with open_store(str(cut)) as a, open_store(str(whole)) as b:
        for game_id in list(expected):
            ra, rb = a.game_record(game_id), b.game_record(game_id)
            assert ra["decisions"] == rb["decisions"] or [d["action"] for d in ra["decisions"]] == [d["action"] for d in rb["decisions"]]


def test_swiss_tournament_runs_and_resumes(tmp_path: Path) -> None:
    spec = load_tournament(write(tmp_path, random_field(7, seats=3, extra='format = "swiss"\nrounds = 3\nrotations = false')))
    db = tmp_path / "s.db"
    with open_store(str(db)) as store:
        outcome = Tournament(spec, store).run(workers=1)
        assert outcome.errors == []
        # 7 bots at 3-seat tables: 2 tables and a bye each round.
        assert outcome.played == 6
        assert sum(r.games for r in outcome.leaderboard) == 18
        assert Tournament(spec, store).run(workers=1).played == 0


def test_swiss_plays_its_short_tables_with_fewer_seats(tmp_path: Path) -> None:
    """``min_seats``: 8 bots at 3-seat tables are two tables of 3 and one of 2 each round, and
    the table of 2 plays 2-player games (it failed every round with '2 bots for 3 seats')."""
    text = random_field(8, seats=3, extra='format = "swiss"\nrounds = 2\nrotations = false\nmin_seats = 2')
    spec = load_tournament(write(tmp_path, text))
    db = tmp_path / "s.db"
    with open_store(str(db)) as store:
        outcome = Tournament(spec, store).run(workers=1)
        assert outcome.errors == [] and outcome.played == 6
        assert store.tournament("t").status == "finished"
    sizes = sorted(len(seats) for seats in results_of(db).values())
    assert sizes == [2, 2, 3, 3, 3, 3]


def test_swiss_points_are_exact() -> None:
    """Equal Swiss scores must be equal: 5th then 4th of 6 is worth what 6th then 3rd is (as
    floats 0.2 + 0.4 != 0.0 + 0.6, which split equal scores by rounding noise)."""
    from arena.tournament import place_points

    six = place_points([1, 6, 5, 4, 3, 2])  # by seat
    assert six == [1, 0, Fraction(1, 5), Fraction(2, 5), Fraction(3, 5), Fraction(4, 5)]
    by_place = place_points([1, 2, 3, 4, 5, 6])
    fifth, fourth, sixth, third = by_place[5 - 1], by_place[4 - 1], by_place[6 - 1], by_place[3 - 1]
    assert (fifth, fourth, sixth, third) == (Fraction(1, 5), Fraction(2, 5), 0, Fraction(3, 5))
    assert fifth + fourth == sixth + third
    assert float(fifth) + float(fourth) != float(sixth) + float(third)  # what floats did
    assert place_points([2, 1]) == [0, 1]
    # Ties share the points of the places they fill; every game hands out n/2 points in all.
    assert place_points([1, 1, 3]) == [Fraction(3, 4), Fraction(3, 4), 0]
    assert place_points([1, 2, 2]) == [1, Fraction(1, 4), Fraction(1, 4)]  # two forfeits: not a 2nd's 1/2
    assert place_points([1, 1, 1]) == [Fraction(1, 2)] * 3
    assert place_points([2, 1, 2, 4]) == [Fraction(1, 2), 1, Fraction(1, 2), 0]
    for places in ([1, 2, 2], [1, 1, 3], [2, 1, 2, 4], [1, 2, 3, 3, 3, 6]):
        assert sum(place_points(places)) == Fraction(len(places), 2)


def stored_pairings(store: Store, tournament: str) -> list[Pairing]:
    """The matches stored for a tournament as pairings (ids ``r{round}-t{table}-s{rotation}``)."""
    out = []
    for match_id, seats in stored_results(store, tournament).seats.items():
        pid = match_id.split("/", 1)[1]
        r, t, rot = (int(part[1:]) for part in pid.split("-"))
        out.append(Pairing(id=pid, round=r, table=t, seats=seats, deal="", rotation=rot))
    return out


def test_a_swiss_round_is_worth_as_much_at_a_short_table(tmp_path: Path) -> None:
    """With seat rotations, a table of 3 played 3 matches and a table of 2 only 2: summed per
    match, each bot at the full table got 1.5 points a round on average and each at the short
    (bottom) table 1.0, so the short table's bots fell behind whatever they played.  A round is
    now each bot's mean over its table's matches: at most 1, 0.5 a bot on average at any table."""
    text = random_field(5, seats=3, extra='format = "swiss"\nrounds = 1\nmin_seats = 2')
    db = tmp_path / "s.db"
    with open_store(str(db)) as store:
        tournament = Tournament(load_tournament(write(tmp_path, text)), store)
        assert tournament.run(workers=1).errors == []
        played = stored_pairings(store, "t")
        assert sorted(Counter((p.round, p.table) for p in played).values()) == [2, 3]  # rotations of 2 and of 3
        points = tournament.standings(played)
    for table in {p.table for p in played}:
        seated = {bot for p in played if p.table == table for bot in p.seats}
        assert sum(points[bot] for bot in seated) == Fraction(len(seated), 2)
    assert all(0 <= value <= 1 for value in points.values())


def test_a_swiss_game_where_nobody_played_gives_no_points(tmp_path: Path) -> None:
    """Three bots that never start share every place; those games are stored (not rated), and
    they gave each crasher half a point a game, more than a bot that played and came last."""
    crash = ROOT / "tests" / "bots" / "zoo_crash_start.py"
    text = random_field(3, seats=3, extra='format = "swiss"\nrounds = 1').replace(str(RANDOM), str(crash))
    db = tmp_path / "c.db"
    with open_store(str(db)) as store:
        tournament = Tournament(load_tournament(write(tmp_path, text)), store)
        tournament.run(workers=1)
        played = stored_pairings(store, "t")
        assert played and all(len(r.forfeits) == 3 for m in stored_results(store, "t").results.values()
                              for r in m.values())
        assert set(tournament.standings(played).values()) == {0}


MATCHES_OF_GAMES = ('name = "t"\ngame = "powder-keg"\nseats = 3\npoints = 2\nseed = 4\n[sandbox]\nmode = "none"\n'
                    + "".join(f'[[bots]]\nname = "r{i}"\npath = "{RANDOM}"\n' for i in range(3)))


@pytest.mark.parametrize("text", [MATCHES_OF_GAMES, random_field(7, extra='format = "swiss"\nrounds = 2\nrotations = false\n'
                                                                          'min_seats = 2')],
                         ids=["matches-of-games", "swiss"])
def test_a_database_of_the_released_schema_upgrades_and_resumes_exactly(shared_deal_key: bytes, tmp_path: Path, text: str) -> None:
    """Existing databases open and resume: one written by the released arena (schema steps 1-3,
    where only a game's id said which match it was part of) is upgraded by this one, rates its
    games in the same order, and resumes to the results and ratings of an uninterrupted run,
    its upgraded games holding the match ids the runner gives them now."""
    spec = load_tournament(write(tmp_path, text))
    with open_store(tmp_path / "whole.db") as store:
        assert Tournament(spec, store).run(workers=1).errors == []
        history = store.rating_history("t")

    def interrupt(progress) -> None:
        if progress.games_done >= 4:  # within a match of games; within the second Swiss round
            raise KeyboardInterrupt

    with open_store(tmp_path / "cut.db") as store:
        with pytest.raises(KeyboardInterrupt):
            Tournament(spec, store).run(workers=1, on_progress=interrupt)
        order = list(dict.fromkeys(r.game_id for r in store.results(tournament="t")))
    whole = results_of(tmp_path / "whole.db")
    assert 4 <= len(order) < len(whole)
    as_released(tmp_path / "cut.db", tmp_path / "old.db", steps=3)
    with open_store(tmp_path / "old.db") as store:
        assert list(dict.fromkeys(r.game_id for r in store.results(tournament="t"))) == order
        resumed = Tournament(spec, store).run(workers=1)
        assert resumed.errors == [] and resumed.played == len(whole) - len(order)
        assert store.rating_history("t") == history
    assert results_of(tmp_path / "old.db") == whole
    match_ids = "SELECT id, match_id FROM games ORDER BY id"
    with sqlite3.connect(tmp_path / "old.db") as upgraded, sqlite3.connect(tmp_path / "whole.db") as reference:
        assert upgraded.execute(match_ids).fetchall() == reference.execute(match_ids).fetchall()
    upgraded.close()
    reference.close()


def test_a_swiss_begun_under_the_first_schedule_resumes_under_it(tmp_path: Path) -> None:
    """Tournaments stored before table sizes seated everyone (and before a round's points were
    a mean over its matches) carry no schedule number: they resume with the rule they began
    with, so their next round is paired as their first was (resuming one was refused: 'match
    ... is stored with the bots ... but the schedule now seats ...')."""
    text = random_field(7, seats=3, extra='format = "swiss"\nrounds = 2\nrotations = false\nmin_seats = 2')
    old, new = tmp_path / "old.db", tmp_path / "new.db"

    def interrupt(progress) -> None:
        if progress.games_done >= 2:
            raise KeyboardInterrupt

    with open_store(str(old)) as store:
        Tournament(load_tournament(write(tmp_path, text)), store)
        spec = dict(store.tournament("t").spec)
        assert spec.pop("schedule") == 2
        store.db.execute("UPDATE tournaments SET spec = ? WHERE id = 't'", [json.dumps(spec)])
        legacy = Tournament(load_tournament(write(tmp_path, text)), store)
        assert legacy.schedule == 1
        with pytest.raises(KeyboardInterrupt):
            legacy.run(workers=1, on_progress=interrupt)
        resumed = Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1)
        assert resumed.errors == [] and store.tournament("t").status == "finished"
    with open_store(str(new)) as store:
        assert Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1).errors == []

    def sizes(db: Path) -> list[int]:
        return sorted(len(seats) for seats in results_of(db).values())

    assert sizes(old) == [3, 3, 3, 3]  # two tables of 3 a round, and a bye
    assert sizes(new) == [2, 2, 2, 2, 3, 3]  # 3 + 2 + 2: everyone seated


def test_swiss_waits_for_a_complete_round_before_pairing_the_next(shared_deal_key: bytes, tmp_path: Path, monkeypatch) -> None:
    """A round with a failed match is not followed by the next: it would be paired on part of
    the results, and a rerun would then mix two schedules.  The rerun finishes the round, goes on,
    and ends where an uninterrupted run does."""
    text = random_field(6, seats=3, extra='format = "swiss"\nrounds = 3\nrotations = false')
    whole = tmp_path / "whole.db"
    with open_store(str(whole)) as store:
        assert Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1).errors == []
    db = tmp_path / "s.db"
    real = Tournament._execute

    def one_match_fails(self, pairings, executor, progress, on_progress, errors, **how):
        pairings = list(pairings)
        if pairings[0].round == 1:
            errors.append("match t/r1-t2 failed: (made up for the test)")
            pairings = pairings[:1]
        real(self, pairings, executor, progress, on_progress, errors, **how)

    with open_store(str(db)) as store:
        monkeypatch.setattr(Tournament, "_execute", one_match_fails)
        first = Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1)
        assert first.played == 1 and "swiss round 1 is incomplete" in first.errors[-1]
        monkeypatch.setattr(Tournament, "_execute", real)
        again = Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1)
        assert again.errors == [] and (again.played, again.skipped) == (5, 1)
    assert results_of(db) == results_of(whole)


def test_stored_games_that_do_not_follow_the_schedule_are_refused(tmp_path: Path, monkeypatch) -> None:
    """Games stored under a pairing's id but played by other bots (a database made when a Swiss
    went on after a failed round) are refused, not credited to the bots the schedule names now."""
    import arena.tournament.formats.swiss as tournament_module

    text = random_field(6, seats=3, extra='format = "swiss"\nrounds = 1\nrotations = false')
    db = tmp_path / "s.db"
    with open_store(str(db)) as store:
        Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1)
        real = tournament_module.swiss_round

        def other_seats(*args, **kwargs):
            plan = real(*args, **kwargs)
            first = plan.pairings[0]
            swapped = dataclasses.replace(first, seats=first.seats[::-1])
            return dataclasses.replace(plan, pairings=(swapped, *plan.pairings[1:]))

        monkeypatch.setattr(tournament_module, "swiss_round", other_seats)
        with pytest.raises(ConfigError, match="do not follow its schedule"):
            Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1)


def test_worker_logs_reach_the_coordinator(tmp_path: Path) -> None:
    """With several workers, the referee's warnings (here: a bot's faults) are gathered on stderr
    through multiprocessing-logging."""
    crash = ROOT / "tests" / "bots" / "zoo_crash_mid.py"
    text = random_field(3, name="logs") + f'[[bots]]\nname = "crasher"\npath = "{crash}"\n'
    spec_file = write(tmp_path, text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([*ARENA, "run", str(spec_file), "--db", str(tmp_path / "l.db"), "--workers", "2", "--quiet"],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "crasher" in line and "faulted" in line]
    assert len(warnings) == 9, result.stderr  # 3 tables with the crasher, 3 rotations each
    assert all("crash" in line for line in warnings)


@pytest.mark.skipif(len(affinity.available_cpus()) < 2, reason="needs two CPUs")
@pytest.mark.parametrize("workers", [1, 2])
def test_each_worker_keeps_its_table_on_one_cpu(tmp_path: Path, workers: int) -> None:
    """A table is sequential: its referee and bots share one CPU (cheap wake-ups); with two
    workers, the two tables in flight use two different CPUs."""
    reporter = ROOT / "tests" / "bots" / "affinity_reporter.py"
    bots = "".join(f'[[bots]]\nname = "a{i}"\npath = "{reporter}"\n' for i in range(4))
    spec = write(tmp_path, f'name = "pin"\ngame = "reactor"\nseats = 2\ngames = 1\nseed = 3\n'
                           f'[sandbox]\nmode = "none"\n{bots}')
    db = tmp_path / "arena.db"
    before = affinity.available_cpus()
    with open_store(str(db)) as store:
        outcome = Tournament(load_tournament(spec), store).run(workers=workers)
        assert outcome.errors == [] and outcome.played == 12
        seen: set[int] = set()
        logged = 0
        for game in store.games(tournament="pin", limit=100):
            logs = store.logs(game.id)
            # A bot's stderr is read as it comes: on a loaded machine a game can be stored before
            # its bots' lines arrive (they then go with a later game of the session).
            logged += bool(logs)
            for text in logs.values():
                masks = {line for line in text.splitlines() if line.startswith("cpus=")}
                assert len(masks) == 1, text
                cpus = json.loads(masks.pop()[len("cpus="):])
                assert len(cpus) == 1
                seen.update(cpus)
    assert logged >= 2 and len(seen) == workers
    assert affinity.available_cpus() == before  # one worker pins this process only while it plays


def test_no_pinning_when_workers_outnumber_cpus() -> None:
    n = len(affinity.available_cpus())
    assert affinity.worker_cpus(n + 1) == [None] * (n + 1)
    if n >= 2:
        assert sorted(affinity.worker_cpus(n)) == affinity.available_cpus()


def _claims(folder: Path, count: int) -> list[int | None]:
    return [affinity.claim_cpu(folder) for _ in range(count)]


@pytest.mark.skipif(len(affinity.available_cpus()) < 2, reason="needs two CPUs")
def test_claimed_cpus_are_distinct_and_freed_when_the_process_ends(tmp_path: Path) -> None:
    """Dask workers claim their CPU themselves: each claim takes a CPU no live process holds,
    none is left once all are taken, and a process that ends (however) frees its claims."""
    from arena.bench import in_child

    cpus = affinity.available_cpus()
    assert in_child(_claims, tmp_path, len(cpus) + 1) == cpus + [None]
    assert in_child(_claims, tmp_path, 1) == [cpus[0]]  # the child above is gone: all free again
    planted = tmp_path / "planted"
    planted.symlink_to(tmp_path)
    assert in_child(_claims, planted, 1) == [None]  # a link where the lock folder should be


def test_jobs_group_consecutive_matches_of_a_table_up_to_a_size() -> None:
    from arena.referee import BotSpec
    from arena.tournament.formats import Pairing
    from arena.execution.jobs import iter_jobs, job_size
    from arena.execution.tasks import Task

    def task(i: int, bots: tuple[str, ...]) -> Task:
        pairing = Pairing(id=f"p{i}", round=1, table=1, seats=bots, deal="d", rotation=0)
        return Task(pairing, f"m{i}", "s", tuple(BotSpec(b, ("x",)) for b in bots))

    tasks = [task(i, ("a", "b")) for i in range(5)] + [task(5, ("b", "a")), task(6, ("a", "c"))]
    jobs = list(iter_jobs(iter(tasks), 2))
    assert [[t.match_id for t in job] for job in jobs] == [["m0", "m1"], ["m2", "m3"], ["m4", "m5"], ["m6"]]
    assert job_size(12, 2) == 3 and job_size(1, 4) == 1 and job_size(100_000, 2) == 64


def test_executor_takes_jobs_only_as_workers_free_up(tmp_path: Path) -> None:
    """The plan is consumed lazily: when the first game arrives, at most two jobs per worker
    have been taken, so the coordinator holds a bounded part of a long tournament."""
    from arena.execution import GameFinished, PlayConfig, Task
    from arena.execution.local import LocalExecutor
    from arena.games import GameConfig
    from arena.referee import RefereeConfig, bot_spec
    from arena.tournament.formats import Pairing

    bots = (bot_spec(str(RANDOM), "x"), bot_spec(str(RANDOM), "y"))
    taken: list[int] = []

    def jobs():
        for i in range(12):
            taken.append(i)
            pairing = Pairing(id=f"p{i}", round=1, table=1, seats=("x", "y"), deal=f"d{i}", rotation=0)
            yield [Task(pairing, f"m{i}", f"seed{i}", bots)]

    seen_at_first: list[int] = []
    games: list[str] = []

    def on_event(event: object) -> None:
        if not seen_at_first:
            seen_at_first.append(len(taken))
        if isinstance(event, GameFinished):
            games.append(event.report.game_id)

    play = PlayConfig(RefereeConfig(sandbox_mode="none"), "reactor", GameConfig(players=2))
    LocalExecutor(2, play).run(jobs(), on_event)
    assert seen_at_first[0] <= 4
    assert len(taken) == 12 and len(games) == 12


def test_concurrent_games_per_lineup_are_configurable(tmp_path: Path) -> None:
    """``concurrent`` bounds the games of one lineup in play at once; the default is not stored,
    so a tournament saved before the field existed resumes unchanged."""
    from arena.tournament import referee_config

    default = load_tournament(write(tmp_path, random_field(3), "a.toml"))
    assert default.concurrent == 16 and referee_config(default).concurrent == 16
    assert "concurrent" not in default.to_json()
    one = load_tournament(write(tmp_path, random_field(3, extra="concurrent = 1"), "b.toml"))
    assert referee_config(one).concurrent == 1 and one.to_json()["concurrent"] == 1


def test_faults_to_disqualify_is_configurable(tmp_path: Path) -> None:
    """How many faulty games in a row disqualify a bot is the tournament's choice (3 by default,
    not stored then, so older tournaments resume unchanged)."""
    from arena.tournament import referee_config

    default = load_tournament(write(tmp_path, random_field(3), "a.toml"))
    assert referee_config(default).faults_to_disqualify == 3 and "faults_to_disqualify" not in default.to_json()
    one = load_tournament(write(tmp_path, random_field(3, extra="faults_to_disqualify = 1"), "b.toml"))
    assert referee_config(one).faults_to_disqualify == 1 and one.to_json()["faults_to_disqualify"] == 1


def _children(pid: int) -> list[int]:
    """Live child processes of ``pid``."""
    out = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[1]) == pid:
            out.append(int(entry))
    return out


def test_a_pool_worker_killed_mid_job_costs_only_its_matches(shared_deal_key: bytes, tmp_path: Path) -> None:
    """A worker process killed from outside (the OOM killer, an operator) takes its job with it:
    the tournament goes on with the other jobs, reports the lost matches as errors, stores every
    game that was finished, and a second run plays exactly what is missing."""
    import threading

    text = random_field(4, games=6, name="lost")
    whole = tmp_path / "whole.db"
    with open_store(str(whole)) as store:
        assert Tournament(load_tournament(write(tmp_path, text, "whole.toml")), store).run(workers=2).errors == []
    db = tmp_path / "cut.db"
    spec = load_tournament(write(tmp_path, text, "cut.toml"))
    outcome = []

    def play() -> None:
        with open_store(str(db)) as store:  # SQLite connections belong to their thread
            outcome.append(Tournament(spec, store).run(workers=2))

    runner = threading.Thread(target=play, daemon=True)
    runner.start()
    victim, deadline = None, time.monotonic() + PATIENCE_S
    while victim is None and time.monotonic() < deadline:
        time.sleep(0.02)
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:  # waits out a writer
            try:
                stored = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                stored = 0
        busy = [pid for pid in _children(os.getpid()) if _children(pid)]  # a worker with bots
        if stored and busy:
            victim = busy[0]
    assert victim is not None, "no worker was playing after the first games were stored"
    os.kill(victim, signal.SIGKILL)
    runner.join(timeout=PATIENCE_S)
    assert not runner.is_alive(), "the tournament waited for the killed worker's job"
    errors = outcome[0].errors
    assert errors and all(f"worker process ({victim}) died" in e for e in errors), errors
    with sqlite3.connect(db) as conn:
        counts = conn.execute("SELECT id, COUNT(*) FROM games GROUP BY id").fetchall()
    assert {n for _, n in counts} == {1} and len(counts) < 72
    with open_store(str(db)) as store:
        again = Tournament(spec, store).run(workers=2)
    assert again.errors == []
    assert results_of(db) == results_of(whole)


def test_ratings_are_the_same_with_one_or_two_workers(shared_deal_key: bytes, tmp_path: Path) -> None:
    """Two workers commit the same games in another order than one worker does (in every run
    seen so far); games are rated in schedule order, so the ratings come out exactly the same,
    history and all.  That the commit order never matters is shown deterministically by
    test_storage.test_ratings_do_not_depend_on_commit_order."""
    from dataclasses import asdict

    text = random_field(4, games=2, name="same")
    boards, histories = [], []
    for workers in (1, 2):
        db = tmp_path / f"w{workers}.db"
        with open_store(str(db)) as store:
            outcome = Tournament(load_tournament(write(tmp_path, text, f"w{workers}.toml")), store).run(workers=workers)
            assert outcome.errors == [] and outcome.played == 24
            boards.append([asdict(row) for row in outcome.leaderboard])
            histories.append([(p.seq, p.game_id, p.bot, p.mu, p.sigma) for p in store.rating_history("same")])
    assert results_of(tmp_path / "w1.db") == results_of(tmp_path / "w2.db")
    assert boards[0] == boards[1]
    assert histories[0] == histories[1]


def test_a_second_run_of_a_tournament_at_the_same_time_is_refused(tmp_path: Path) -> None:
    """Two runs of one tournament on one database would play its matches twice and store games
    after a match was over; the second is refused while the first holds the tournament."""
    from arena.errors import StorageError

    spec = load_tournament(write(tmp_path, random_field(3)))
    db = tmp_path / "a.db"
    with open_store(str(db)) as first, first.running("t"):
        with open_store(str(db)) as second, pytest.raises(StorageError, match="already being played"):
            Tournament(spec, second).run(workers=1)
        link = tmp_path / "link.db"  # the same database under another name is the same database
        link.symlink_to(db)
        with open_store(str(link)) as third, pytest.raises(StorageError, match="already being played"):
            Tournament(spec, third).run(workers=1)
        hard = tmp_path / "hard.db"  # a second name of the same file: SQLite would keep two journals
        os.link(db, hard)
        for readonly in (False, True):
            with pytest.raises(StorageError, match="2 hard links"):
                open_store(str(hard), readonly=readonly)
        hard.unlink()
    with open_store(str(db)) as store:  # once the first is over, the tournament can be played
        assert Tournament(spec, store).run(workers=1).errors == []


def test_long_database_and_tournament_names_still_get_their_locks(tmp_path: Path) -> None:
    """A valid tournament id (64 characters) beside a long database name made a lock file name
    over the file system's 255 bytes: the run failed with a traceback after storing the tournament."""
    from arena.errors import StorageError

    db, tid = tmp_path / ("d" * 200 + ".db"), "t" * 64
    with open_store(str(db)) as first, first.running(tid):
        assert first.being_played(tid) and not first.being_played("t" * 63)
        with open_store(str(db)) as second, pytest.raises(StorageError, match="already being played"):
            with second.running(tid):
                pass
        with second.running("t" * 63):  # another tournament of the same database: its own lock
            pass
    assert not any(len(os.fsencode(p.name)) > 255 for p in tmp_path.iterdir())


def test_arena_tournaments_tells_a_running_tournament_from_an_interrupted_one(tmp_path: Path) -> None:
    """A stopped run leaves its tournament unfinished: `arena tournaments` said "running" after a
    Ctrl-C or a kill; it now says so only while a process plays it, else "interrupted"."""
    from typer.testing import CliRunner

    from arena.cli import app

    spec = load_tournament(write(tmp_path, random_field(3)))
    db = tmp_path / "a.db"

    def status() -> str:
        out = CliRunner().invoke(app, ["tournaments", "--db", str(db), "--json"])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)[0]["status"]

    with open_store(str(db)) as store:
        Tournament(spec, store)  # registered, never played: as after a kill before any game
        assert status() == "interrupted"
        with store.running("t"):
            assert store.being_played("t") and status() == "running"
        assert not store.being_played("t") and status() == "interrupted"
        Tournament(spec, store).run(workers=1)
    assert status() == "finished"


def test_a_store_that_stops_taking_games_stops_the_run_and_a_rerun_finishes(shared_deal_key: bytes, tmp_path: Path) -> None:
    """A full disk (SQLite's page limit here) ends the run with one StorageError instead of
    playing and dropping every remaining match; after room is made, the rerun plays the rest
    and the results equal an uninterrupted run's."""
    from arena.errors import StorageError

    text = random_field(4, games=3)
    whole = tmp_path / "whole.db"
    with open_store(str(whole)) as store:
        assert Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1).errors == []
    db = tmp_path / "full.db"
    with open_store(str(db)) as store:
        tournament = Tournament(load_tournament(write(tmp_path, text)), store)
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages + 12}")
        with pytest.raises(StorageError, match="full"):
            tournament.run(workers=1)
        kept = store.db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert 0 < kept < len(results_of(whole))
    with open_store(str(db)) as store:
        again = Tournament(load_tournament(write(tmp_path, text)), store).run(workers=1)
        assert again.errors == [] and again.skipped == kept
    assert results_of(db) == results_of(whole)


def test_a_moved_project_resumes_and_a_changed_bot_keeps_its_stored_version(tmp_path: Path, caplog) -> None:
    """Bots are held to their content, not their path: the same tournament file and bots copied
    to another folder resume (they were refused as 'other settings'); a bot whose file changed
    since the tournament began plays on in its stored version, with a warning that says so."""
    import shutil

    def field(folder: Path) -> Path:
        folder.mkdir()
        shutil.copy(RANDOM, folder / "bot.py")
        bots = "".join(f'[[bots]]\nname = "r{i}"\npath = "bot.py"\n' for i in range(3))
        return write(folder, f'name = "m"\ngame = "reactor"\nseats = 3\nseed = 5\n[sandbox]\nmode = "none"\n{bots}')

    here, there = field(tmp_path / "here"), field(tmp_path / "there")
    db = tmp_path / "m.db"
    with open_store(str(db)) as store:
        assert Tournament(load_tournament(here), store).run(workers=1).played == 3
        assert Tournament(load_tournament(there), store).run(workers=1).skipped == 3
        (tmp_path / "there" / "bot.py").write_text(RANDOM.read_text() + "\n# changed\n")
        with caplog.at_level("WARNING", logger="arena.tournament"):
            tournament = Tournament(load_tournament(there), store)
        assert "bot 'r0'" in caplog.text and "is not the version tournament" in caplog.text and "goes on with that one (version 1" in caplog.text
        assert tournament.run(workers=1).skipped == 3
        assert store.bot("r0").version == 1  # the changed file was not registered as a new version


@pytest.mark.parametrize(("parent_alive", "status"), [(True, 0), (False, 1)])
def test_a_worker_forked_by_a_coordinator_that_is_already_gone_leaves_at_once(parent_alive: bool, status: int) -> None:
    """A coordinator killed while it forks a worker dies before the worker can ask to die with
    it: the orphan then held the tournament's lock for ever and every resume was refused.  The
    worker checks, after asking, that its parent is still the coordinator."""
    from arena.execution.local import _die_with_parent

    coordinator = os.getpid() if parent_alive else 1  # 1: as if the worker had been adopted by init
    pid = os.fork()
    if pid == 0:
        _die_with_parent(coordinator)
        os._exit(0)
    _, code = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(code) == status


def test_a_path_that_changes_a_registered_bot_says_its_versions_share_a_rating(tmp_path: Path, caplog) -> None:
    """A tournament file's path registers without a check; a new content under a known name is
    a new version, rated with the old ones under the name: the run says so, not in silence."""
    db = tmp_path / "a.db"
    strong = ROOT / "bots" / "reactor_strong.py"
    with open_store(str(db)) as store:
        Tournament(load_tournament(write(tmp_path, random_field(3))), store)
        text = random_field(3, name="u").replace(f'name = "r0"\npath = "{RANDOM}"', f'name = "r0"\npath = "{strong}"')
        with caplog.at_level("WARNING"):
            Tournament(load_tournament(write(tmp_path, text, "u.toml")), store)
        assert store.bot("r0").version == 2
    assert [r.getMessage() for r in caplog.records if "version 2" in r.getMessage()] == [
        f"bot 'r0': {strong} is not its current content (version 1), so the tournament plays version 2; ratings are "
        "per name (its versions share one rating): name a version (NAME@N) or give a much changed bot a new name to "
        "rate it apart"]


def test_a_swiss_match_is_worth_the_mean_of_its_games(tmp_path: Path) -> None:
    """Powder Keg matches run to `points`, so some take more games than others; summed per game,
    a long match was worth more than a short one.  Each match now hands out its seats / 2 in all."""
    bots = "".join(f'[[bots]]\nname = "k{i}"\npath = "{RANDOM}"\n' for i in range(4))
    text = (f'name = "kswiss"\ngame = "powder-keg"\nformat = "swiss"\nseats = 2\nrounds = 2\npoints = 2\n'
            f'rotations = false\nseed = 3\n[sandbox]\nmode = "none"\n{bots}')
    db = tmp_path / "k.db"
    with open_store(str(db)) as store:
        tournament = Tournament(load_tournament(write(tmp_path, text)), store)
        outcome = tournament.run(workers=1)
        done = stored_results(store, tournament.id)
        matches = len(done.results)
        games = sum(len(r) for r in done.results.values())
        assert outcome.errors == [] and matches == 4 and games > matches  # some matches took 3 games
        played = [Pairing(id=match_id.split("/", 1)[1], round=1, table=table, seats=seats, deal="", rotation=0)
                  for table, (match_id, seats) in enumerate(done.seats.items(), 1)]
        assert sum(tournament.standings(played).values()) == matches  # 2 seats: 1 point a match
