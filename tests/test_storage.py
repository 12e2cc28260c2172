"""The arena database: schema and migrations, bot versions, one transaction per game,
exactly-once games, record round trips, filters, WAL and concurrent processes, and errors a
user can act on.  Real SQLite files in ``tmp_path`` unless a test says memory."""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import storage
from arena.errors import NoDatabase, StorageError, UnknownBot
from arena.ratings import RatingTable, iter_outcomes, make_env, outcomes_from_results, rate, rate_points
from arena.core import ids
from arena.core.faults import FaultRecord
from arena.referee.standing import disqualified_seats
from arena.storage import GameRow, SeatResult, Store, backends, open_store, seat_results, store_exists
from arena.storage.sqlite import SqliteStore

from common import PATIENCE_S, ROOT, InterfaceOnly, as_released
TABLES = {"bots", "bot_versions", "tournaments", "games", "results", "faults", "logs", "ratings", "secrets"}
CMD = ["python", "{file}"]


def make_record(game_id: str, names: list[str], places: list[int], winner: int | None, decisions: int = 150) -> dict:
    """A record shaped like a real one (arena-record/1), about 30 KB of JSON."""
    n = len(names)
    return {
        "format": "arena-record/1",
        "game": "reactor",
        "config": {"players": n, "variants": [], "starter": 0, "points": None},
        "seed": f"root:{game_id}",
        "seats": names,
        "match": {"index": 0, "game": 0, "scores": [0] * n},
        "chance": [{"kind": "shuffle", "order": list(range(60))}],
        "decisions": [{"seat": i % n, "action": {"type": "play", "card": i % 17}, "ms": 3} for i in range(decisions)],
        "events": [{"type": "played", "seat": i % n, "card": {"rank": i % 13, "suit": "hearts"},
                    "private": {"to": [i % n], "hand": [1, 2, 3]}} for i in range(decisions)],
        "result": {"places": places, "winner": winner, "capped": False, "forfeits": [], "reason": "normal"},
    }


def add(
    store: Store,
    game_id: str,
    versions: list,
    places: list[int],
    *,
    tournament: str | None = None,
    faults: list[FaultRecord] = (),
    logs: dict[int, str] | None = None,
) -> bool:
    winner = places.index(1) if places.count(1) == 1 else None
    record = make_record(game_id, [v.name for v in versions], places, winner)
    row = GameRow(id=game_id, game="reactor", seats=[v.id for v in versions], winner=winner, record=record,
                  tournament=tournament, round=1, table_no=0, seed=record["seed"], duration_ms=12)
    return store.add_game(row, seat_results(record), list(faults), logs)


def add_bots(store: Store, n: int = 3) -> list:
    return [store.add_bot_version(f"bot{i}", "reactor", f"bot{i}.py", f"print({i})".encode(), CMD, {"ok": True})
            for i in range(n)]


@pytest.fixture(params=["file", "memory"])
def store(request, tmp_path):
    s = open_store(tmp_path / "arena.db") if request.param == "file" else open_store(":memory:")
    yield s
    s.close()


# --- schema and migrations ------------------------------------------------------------------


def test_a_new_file_gets_the_whole_schema(tmp_path):
    with open_store(tmp_path / "a.db") as s:
        assert TABLES <= set(s.db.table_names())
        assert s.schema_version == len(storage.schema.STEPS) == 10
        indexes = {r[0] for r in s.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"games_schedule", "results_bot", "results_version", "faults_game", "games_tournament_seq",
                "games_game_seq"} <= indexes
        assert "games_tournament" not in indexes  # replaced by games_schedule, which starts with it


def test_the_deal_key_is_made_once_per_database_and_kept_from_other_users(tmp_path):
    """The key of the deals (arena.core.deals) is the database's own: the same on every open, another
    in another file, and in a file only its owner can read (a bot without bubblewrap has a uid of
    its own)."""
    path = tmp_path / "a.db"
    with open_store(path) as s:
        key = s.deal_key()
        assert len(key) == 32 and s.deal_key() == key
    with open_store(path) as s:
        assert s.deal_key() == key
    with open_store(tmp_path / "b.db") as other:
        assert other.deal_key() != key
    with open_store(":memory:") as memory:
        assert len(memory.deal_key()) == 32
    for name in ("a.db", "a.db-wal", "a.db-shm"):
        if (tmp_path / name).exists():
            assert (tmp_path / name).stat().st_mode & 0o077 == 0, name


def test_an_older_readable_database_is_made_private_when_it_gets_its_key(tmp_path, caplog):
    path = tmp_path / "old.db"
    with open_store(path):
        pass
    path.chmod(0o644)
    with open_store(path) as s:
        s.deal_key()
    assert path.stat().st_mode & 0o777 == 0o600
    assert "now holds the key of its deals" in caplog.text


def test_reopening_an_existing_file_applies_nothing_twice(tmp_path):
    path = tmp_path / "a.db"
    with open_store(path) as s:
        bots = add_bots(s)
        add(s, "g1", bots, [1, 2, 3])
    for _ in range(2):
        with open_store(path) as s:
            assert s.schema_version == len(storage.schema.STEPS)
            assert s.db.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == len(storage.schema.STEPS)
            assert s.counts()["games"] == 1 and s.counts()["results"] == 3


def test_a_later_step_migrates_an_existing_file_and_an_older_arena_refuses_it(tmp_path, monkeypatch):
    path = tmp_path / "a.db"
    with open_store(path) as s:
        add(s, "g1", add_bots(s), [2, 1, 3])

    def _vlater_bot_notes(db):
        db.execute("ALTER TABLE bots ADD COLUMN notes TEXT")

    released = storage.schema.STEPS
    monkeypatch.setattr(storage.schema, "STEPS", [*released, _vlater_bot_notes])
    with open_store(path) as s:
        assert s.schema_version == len(released) + 1
        assert "notes" in {r[1] for r in s.db.execute("PRAGMA table_info(bots)")}
        assert s.counts()["games"] == 1 and s.game_record("g1")["result"]["places"] == [2, 1, 3]
    with open_store(path) as s:  # re-runnable: nothing pending the second time
        assert s.schema_version == len(released) + 1

    monkeypatch.setattr(storage.schema, "STEPS", released)
    with pytest.raises(StorageError, match=r"newer arena .*_vlater_bot_notes.*upgrade arena"):
        open_store(path)


def test_file_database_uses_wal_foreign_keys_and_busy_timeout(tmp_path):
    with open_store(tmp_path / "a.db") as s:
        assert s.journal_mode == "wal"
        assert s.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert s.db.execute("PRAGMA busy_timeout").fetchone()[0] == storage.sqlite.BUSY_TIMEOUT_MS


def test_memory_store_every_spelling():
    for location in (":memory:", "sqlite://", "sqlite:///:memory:", "SQLite://"):
        with open_store(location) as s:
            assert s.path == ":memory:" and s.schema_version == len(storage.schema.STEPS)
            add_bots(s, 1)
            assert s.counts()["bots"] == 1


def test_open_store_picks_the_backend_by_the_scheme(tmp_path, monkeypatch):
    """One line in the table makes a backend: its scheme's locations go to it, whole; a location
    without a scheme is a SQLite file as before, a path object included."""
    monkeypatch.setitem(backends.BACKENDS, "interface", InterfaceOnly)
    location = f"interface://{tmp_path / 'a.db'}"
    assert store_exists(location) is False
    with open_store(location) as store:
        assert type(store) is InterfaceOnly
        add_bots(store, 2)
    assert store_exists(location) and store_exists(tmp_path / "a.db")
    with open_store(location, readonly=True) as store:
        assert [b.name for b in store.bots()] == ["bot0", "bot1"]
    with open_store(tmp_path / "a.db", readonly=True) as store, open_store(str(tmp_path / "a.db")) as same:
        assert type(store) is type(same) is SqliteStore and store.bots() == same.bots()


@pytest.mark.parametrize(("location", "words"), [
    ("postgres://db.example/arena", ["unknown storage scheme postgres:// in postgres://db.example/arena",
                                     "(known: sqlite://)", "sqlite:///PATH"]),
    ("S3://bucket/arena.db", ["unknown storage scheme s3://"]),
    ("sqlite://host/arena.db", ["names a host", "sqlite:///PATH"]),
    ("sqlite:///", ["names no file"]),
])
def test_a_location_no_backend_can_open_is_one_clear_line(location, words):
    for attempt in (lambda: open_store(location), lambda: store_exists(location),
                    lambda: open_store(location, readonly=True)):
        with pytest.raises(StorageError) as err:
            attempt()
        assert "\n" not in str(err.value) and all(word in str(err.value) for word in words), str(err.value)


def test_only_a_writing_open_makes_a_database(tmp_path, monkeypatch):
    """A read-only open (and one that must not create) of a location with no database is
    NoDatabase, a StorageError naming the location as given; nothing is made there."""
    monkeypatch.chdir(tmp_path)
    for location in ("new.db", "sqlite:///new.db", f"sqlite:///{tmp_path}/new.db", ":memory:", "sqlite://"):
        for flags in ({"readonly": True}, {"create": False}, {"create": True, "readonly": True}):
            with pytest.raises(NoDatabase, match=f"^no database at {re.escape(location)}$"):
                open_store(location, **flags)
        assert list(tmp_path.iterdir()) == []
    with pytest.raises(StorageError, match=f"no folder {re.escape(str(tmp_path / 'no'))} for the database"):
        store_exists(tmp_path / "no" / "new.db")
    assert store_exists(tmp_path / "new.db") is False and list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_a_database_reads_well(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("hello, I am not SQLite " * 100)
    with pytest.raises(StorageError, match=r"cannot open .*notes.txt as an arena database"):
        open_store(bad)
    with pytest.raises(StorageError, match="is a directory"):
        open_store(tmp_path)


def test_the_bot_cache_is_beside_the_file_or_private_to_a_database_in_memory(tmp_path):
    """Stored bots are written out to run where the store says: beside a database file (beside
    the file a symlink names), or for a database in memory a folder of its own, which closing
    the store removes."""
    real = tmp_path / "data" / "a.db"
    real.parent.mkdir()
    link = tmp_path / "link.db"
    link.symlink_to(real)
    with open_store(real) as s, open_store(link) as through_link:
        assert s.bot_cache() == through_link.bot_cache() == real.parent.resolve() / ".arena-bots"
    with open_store(":memory:") as a, open_store("sqlite://") as b:
        cache = a.bot_cache()
        assert cache.is_dir() and a.bot_cache() == cache and b.bot_cache() != cache
        (cache / "bot.py").write_text("print()")
        other = b.bot_cache()
    assert not cache.exists() and not other.exists()


def test_games_are_append_only(store):
    add(store, "g1", add_bots(store), [1, 2, 3])
    for sql in ("UPDATE games SET capped = 1", "DELETE FROM games", "UPDATE results SET place = 1",
                "DELETE FROM results"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            store.db.execute(sql)
    assert store.counts()["results"] == 3


# --- bots -----------------------------------------------------------------------------------


def test_bot_versions_by_content(store):
    v1 = store.add_bot_version("alice", "reactor", "alice.py", b"print('a')", CMD, {"ok": True})
    assert (v1.version, v1.name, v1.game, v1.command) == (1, "alice", "reactor", CMD)
    assert v1.sha256 == hashlib.sha256(b"print('a')").hexdigest()
    assert v1.check_report == {"ok": True}

    again = store.add_bot_version("alice", "reactor", "alice.py", b"print('a')", CMD, {"ok": True})
    assert again == v1

    v2 = store.add_bot_version("alice", "reactor", "alice.py", b"print('a2')", CMD, {})
    assert v2.version == 2 and v2.id != v1.id
    assert store.bot("alice") == v2
    assert store.bot_content(v1.id) == b"print('a')" and store.bot_content(v2.id) == b"print('a2')"
    assert store.bot_version(v1.id) == v1

    # Going back to the first file reuses version 1 but leaves version 2 current, unless asked.
    back = store.add_bot_version("alice", "reactor", "alice.py", b"print('a')", CMD, {})
    assert back.id == v1.id and store.bot("alice").version == 2
    back = store.add_bot_version("alice", "reactor", "alice.py", b"print('a')", CMD, {}, make_current=True)
    assert back.id == v1.id and store.bot("alice").version == 1
    assert [(b.name, b.version, b.versions) for b in store.bots()] == [("alice", 1, 2)]


def test_bot_content_is_stored_byte_for_byte(store):
    blob = bytes(range(256)) * 1000  # e.g. a tar of a bot directory
    v = store.add_bot_version("tarbot", "reactor", "tarbot.tar", blob, ["python", "{dir}/main.py"], {})
    assert store.bot_content(v.id) == blob


def test_bots_list_counts_games_and_filters_by_game(store):
    a, b, c = add_bots(store)
    store.add_bot_version("keg", "powder-keg", "keg.py", b"k", CMD, {})
    add(store, "g1", [a, b, c], [1, 2, 3])
    add(store, "g2", [b, c, a], [1, 2, 3])
    assert {s.name: s.games for s in store.bots()} == {"bot0": 2, "bot1": 2, "bot2": 2, "keg": 0}
    assert [s.name for s in store.bots(game="powder-keg")] == ["keg"]


def test_bot_registration_errors_say_what_to_do(store):
    store.add_bot_version("alice", "reactor", "a.py", b"x", CMD, {})
    with pytest.raises(StorageError, match="registered for reactor, not powder-keg; choose another name"):
        store.add_bot_version("alice", "powder-keg", "a.py", b"y", CMD, {})
    with pytest.raises(StorageError, match="has this content but runs with"):
        store.add_bot_version("alice", "reactor", "a.py", b"x", ["pypy3", "{file}"], {})
    assert store.counts()["bot_versions"] == 1


def test_unknown_bot_lists_the_bots_there_are(store):
    with pytest.raises(UnknownBot, match=r"no bot named 'zed' \(bots: none yet\); add it with `arena bots add`"):
        store.bot("zed")
    add_bots(store, 2)
    with pytest.raises(UnknownBot, match=r"no bot named 'zed' \(bots: bot0, bot1\)"):
        store.bot("zed")
    with pytest.raises(UnknownBot, match="no bot version with id 99"):
        store.bot_version(99)
    with pytest.raises(UnknownBot, match="no bot version with id 99"):
        store.bot_content(99)


# --- tournaments ----------------------------------------------------------------------------


def test_start_tournament_is_idempotent_and_refuses_another_spec(store):
    spec = {"game": "reactor", "players": 4, "bots": ["a", "b"], "rounds": 3}
    t = store.start_tournament("spring", "Spring cup", "reactor", spec, 7)
    assert (t.status, t.spec, t.seed) == ("running", spec, 7)
    # Same spec with its keys in another order is the same spec.
    assert store.start_tournament("spring", "Spring cup", "reactor", dict(reversed(spec.items())), 7) == t
    with pytest.raises(StorageError, match=r"different spec; .*another name or use another database"):
        store.start_tournament("spring", "Spring cup", "reactor", {**spec, "rounds": 4}, 7)
    with pytest.raises(StorageError, match="different seed"):
        store.start_tournament("spring", "Spring cup", "reactor", spec, 8)
    store.finish_tournament("spring")
    assert store.tournament("spring").status == "finished" and store.tournament("spring").finished
    assert [x.id for x in store.tournaments()] == ["spring"]
    with pytest.raises(StorageError, match=r"no tournament 'autumn' .*`arena tournaments`"):
        store.tournament("autumn")


# --- games ----------------------------------------------------------------------------------


def test_add_game_writes_game_results_faults_and_logs(store):
    a, b, c = add_bots(store)
    store.start_tournament("t", "T", "reactor", {}, 1)
    faults = [FaultRecord(seat=2, kind="timeout", message="no reply in 1000 ms", decision=17)]
    assert add(store, "r1-t0-s0-g0", [a, b, c], [2, 1, 3], tournament="t", faults=faults,
               logs={0: "", 2: "Traceback ...\n"}) is True
    assert store.counts() | {"bots": 0, "bot_versions": 0, "tournaments": 0} == {
        "bots": 0, "bot_versions": 0, "tournaments": 0, "games": 1, "results": 3, "faults": 1, "logs": 2, "ratings": 0}
    rows = store.results(tournament="t")
    assert [(r.seat, r.bot, r.bot_version_id, r.place, r.points, r.forfeited) for r in rows] == [
        (0, "bot0", a.id, 2, 0, False), (1, "bot1", b.id, 1, 1, False), (2, "bot2", c.id, 3, 0, False)]
    assert store.faults("r1-t0-s0-g0") == [FaultRecord(2, "timeout", "no reply in 1000 ms", 17, bot="bot2")]
    assert store.logs("r1-t0-s0-g0") == {0: "", 2: "Traceback ...\n"}
    [summary] = store.games()
    assert (summary.bots, summary.places, summary.winner, summary.faults, summary.capped) == (
        ["bot0", "bot1", "bot2"], [2, 1, 3], 1, 1, False)


def test_add_game_is_exactly_once(store):
    bots = add_bots(store)
    store.start_tournament("t", "T", "reactor", {}, 1)
    assert add(store, "g1", bots, [1, 2, 3], tournament="t", faults=[FaultRecord(0, "crash")], logs={0: "x"})
    before = store.counts()
    # Reported twice (e.g. a worker retried): stored once, the second report changes nothing.
    assert add(store, "g1", bots, [3, 2, 1], tournament="t", faults=[FaultRecord(1, "crash")], logs={1: "y"}) is False
    assert store.counts() == before
    assert store.games()[0].places == [1, 2, 3]
    # The same id from another tournament would silently lose a game: refuse it instead.
    with pytest.raises(StorageError, match="already stored for tournament 't'; game ids must be unique"):
        add(store, "g1", bots, [1, 2, 3])


@pytest.mark.parametrize(
    "faults, logs, message",
    [
        ([FaultRecord(0, "timeout"), FaultRecord(1, "")], {0: "log"}, "CHECK constraint failed"),  # empty kind
        ([FaultRecord(5, "crash")], {0: "log"}, "seat 5, which is not at the table"),
        ([FaultRecord(1, "crash", bot="someone")], {}, "names bot 'someone'"),
        ([FaultRecord(0, "crash")], {0: "log", 7: "log of a seat that is not there"}, "FOREIGN KEY"),
    ],
    ids=["empty-kind", "fault-seat", "fault-bot", "log-seat"],
)
def test_a_failure_in_the_middle_of_add_game_writes_nothing(store, faults, logs, message):
    bots = add_bots(store)
    store.start_tournament("t", "T", "reactor", {}, 1)
    before = store.counts()
    with pytest.raises(StorageError, match=message) as err:
        add(store, "g1", bots, [1, 2, 3], tournament="t", faults=faults, logs=logs)
    if "constraint" in message or "KEY" in message:
        assert "nothing of it was written" in str(err.value)
    # The game row and its results were inserted before the bad row: all rolled back.
    assert store.counts() == before
    assert store.played_ids("t") == set()
    assert not store.db.conn.in_transaction
    # The store is still usable and the same game goes in cleanly afterwards.
    assert add(store, "g1", bots, [1, 2, 3], tournament="t")
    assert store.played_ids("t") == {"g1"}


def test_inconsistent_games_are_refused_before_writing(store):
    a, b, c = add_bots(store)
    keg = store.add_bot_version("keg", "powder-keg", "keg.py", b"k", CMD, {})
    record = make_record("g", ["bot0", "bot1"], [1, 2], 0)
    cases = [
        (GameRow("g", "reactor", [a.id, b.id], 0, record), [SeatResult(0, 1)], "must cover seats 0-1"),
        (GameRow("g", "reactor", [a.id, b.id], 0, record), [SeatResult(0, 2), SeatResult(1, 1)],
         "differ from the game record"),
        (GameRow("g", "reactor", [a.id, 999], 0, record), seat_results(record), "bot version 999 is not in the database"),
        (GameRow("g", "reactor", [a.id, keg.id], 0, record), seat_results(record), "bot 'keg' plays powder-keg"),
        (GameRow("g", "reactor", [a.id], 0, record), [SeatResult(0, 1)], "has 1 seats; a game has 2 to 6"),
        (GameRow("g", "reactor", [a.id, b.id], 0, {"x": 2**70}), seat_results(record), "not plain JSON"),
    ]
    for row, results, message in cases:
        with pytest.raises(StorageError, match=message):
            store.add_game(row, results)
    assert store.counts()["games"] == 0


def test_record_round_trip_and_compression(store):
    bots = add_bots(store)
    add(store, "g1", bots, [3, 1, 2])
    record = make_record("g1", ["bot0", "bot1", "bot2"], [3, 1, 2], 1)
    assert store.game_record("g1") == record
    stored = store.db.execute("SELECT length(record) FROM games").fetchone()[0]
    assert stored < len(orjson.dumps(record)) / 5


@settings(max_examples=60)
@given(st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
))
def test_any_json_record_round_trips(value):
    record = {"format": "arena-record/1", "payload": value}
    assert storage.decode_record(storage.encode_record(record)) == record


def test_unknown_game_reads_well(store):
    with pytest.raises(StorageError, match=r"^no game r9-t9-s9-g0; see `arena games`$"):
        store.game_record("r9-t9-s9-g0")


def test_played_ids_and_filters(store):
    a, b, c = add_bots(store)
    store.start_tournament("t1", "T1", "reactor", {}, 1)
    store.start_tournament("t2", "T2", "reactor", {}, 2)
    add(store, "t1/g1", [a, b, c], [1, 2, 3], tournament="t1", faults=[FaultRecord(0, "timeout"), FaultRecord(0, "timeout")])
    add(store, "t1/g2", [a, b], [2, 1], tournament="t1", faults=[FaultRecord(1, "crash")])
    add(store, "t2/g1", [b, c], [1, 2], tournament="t2")
    add(store, "adhoc", [a, c], [1, 2])

    assert store.played_ids("t1") == {"t1/g1", "t1/g2"}
    assert store.played_ids("t2") == {"t2/g1"}
    assert store.played_ids("nope") == set()

    assert [g.id for g in store.games()] == ["adhoc", "t2/g1", "t1/g2", "t1/g1"]  # newest first
    assert [g.id for g in store.games(tournament="t1")] == ["t1/g2", "t1/g1"]
    assert [g.id for g in store.games(bot="bot2")] == ["adhoc", "t2/g1", "t1/g1"]
    assert [g.id for g in store.games(tournament="t1", bot="bot2")] == ["t1/g1"]
    assert [g.id for g in store.games(limit=2)] == ["adhoc", "t2/g1"]
    assert [g.faults for g in store.games(tournament="t1")] == [1, 2]

    # Results come in rating order, seat by seat (see test_results_come_in_schedule_order).
    assert [(r.game_id, r.seat) for r in store.results(tournament="t1")] == [
        ("t1/g1", 0), ("t1/g1", 1), ("t1/g1", 2), ("t1/g2", 0), ("t1/g2", 1)]
    assert list(dict.fromkeys(r.game_id for r in store.results())) == ["t1/g1", "t1/g2", "t2/g1", "adhoc"]
    assert {r.game_id for r in store.results(game="reactor")} == {"t1/g1", "t1/g2", "t2/g1", "adhoc"}
    assert store.results(game="powder-keg") == []

    assert store.fault_counts() == {"bot0": {"timeout": 2}, "bot1": {"crash": 1}}
    assert store.fault_counts(tournament="t2") == {}


def test_games_mark_seats_that_forfeited_without_a_fault_of_their_own(store):
    """A bot disqualified from a match forfeits its later games with no fault stored for them; the
    summary hands over each seat's forfeit and faults, from which the referee's rule names its
    seat, where a forfeit for a fault in that game is counted as a fault."""
    a, b, c = add_bots(store)
    stopped = [FaultRecord(2, "crash", "it crashed (in game g9, played at the same time...)", collateral=True)]
    for game_id, forfeits, faults in (("dq", [2], []), ("crash", [2], [FaultRecord(2, "crash")]), ("clean", [], []),
                                      ("stopped", [2], stopped)):
        record = make_record(game_id, ["bot0", "bot1", "bot2"], [1, 2, 3], 0)
        record["result"]["forfeits"] = forfeits
        row = GameRow(id=game_id, game="reactor", seats=[a.id, b.id, c.id], winner=0, record=record)
        store.add_game(row, seat_results(record), faults)
    summaries = {g.id: (g.faults, disqualified_seats(g.forfeited, g.collateral)) for g in store.games()}
    assert summaries == {"dq": (0, [2]), "crash": (1, []), "clean": (0, []), "stopped": (1, [])}
    assert store.faults("stopped") == [FaultRecord(2, "crash", stopped[0].message, None, "bot2", collateral=True)]
    assert [f.collateral for _, f in store.tournament_faults("none")] == []


def test_an_upgraded_file_marks_its_old_collateral_faults(tmp_path):
    """Schema step 3 adds ``faults.collateral``; the faults stored before it were collateral
    when their message ended as the referee then wrote it, and only then."""
    with open_store(tmp_path / "games.db") as games:
        a, b = add_bots(games, 2)
        games.start_tournament("t", "T", "reactor", {}, 1)
        add(games, "g1", [a, b], [2, 1], tournament="t")
    path = tmp_path / "old.db"
    as_released(tmp_path / "games.db", path, steps=2)
    messages = ["no answer in 2000 ms",
                "no answer in 2000 ms (in game t/r1-t1-s0-g0, played at the same time; the bot was stopped)",
                "the bot said: played at the same time; the bot was stopped"]  # its own words, not the note
    with sqlite3.connect(path) as old:
        old.executemany("INSERT INTO faults (game_id, seat, bot, kind, message) VALUES ('g1', 0, 'bot0', 'timeout', ?)",
                        [[message] for message in messages])
    old.close()
    steps = len(storage.schema.STEPS)
    with open_store(path, readonly=True) as reader:  # a read-only command upgrades it first: its queries need the column
        assert reader.schema_version == steps and [g.faults for g in reader.games()] == [3]
    with open_store(path) as upgraded:
        assert upgraded.schema_version == steps
        assert [(f.message, f.collateral) for _, f in upgraded.tournament_faults("t")] == [
            (messages[0], False), (messages[1], True), (messages[2], False)]


def test_an_upgraded_file_gives_its_games_their_match_ids(tmp_path):
    """Schema step 4 adds ``games.match_id``; a game stored before it gets the match its id
    names, read as :class:`arena.core.ids.GameId` reads it (an id of another form has none),
    and storage orders by the column from then on."""
    game_ids = ["cup/r1-t2-s0-g3", "cup/r1-t1-s0-g10", "cup/r1-t1-s1-g0", "a-g1-g2", "g1", "adhoc", "x-g", "-g5",
                "cup/r1-t1-s1-gx1", "cup/r1-t1-s1-G4"]
    with open_store(tmp_path / "games.db") as games:
        bots = add_bots(games, 2)
        for game_id in game_ids:
            add(games, game_id, bots, [1, 2])  # no match_id given: the column stays empty here
    as_released(tmp_path / "games.db", tmp_path / "old.db", steps=3)

    def match(game_id: str) -> str | None:
        try:
            return ids.GameId.parse(game_id).match
        except ValueError:
            return None

    with open_store(tmp_path / "old.db") as upgraded:
        assert dict(upgraded.db.execute("SELECT id, match_id FROM games").fetchall()) == {
            game_id: match(game_id) for game_id in game_ids}
        assert match("cup/r1-t1-s0-g10") == "cup/r1-t1-s0" and match("x-g") is None  # the grammar, as a check
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):  # the trigger is back
            upgraded.db.execute("UPDATE games SET match_id = 'x'")


def test_save_ratings_replaces_a_tournaments_history(store):
    a, b, c = add_bots(store)
    store.start_tournament("t", "T", "reactor", {}, 1)
    add(store, "g1", [a, b, c], [1, 2, 3], tournament="t")
    add(store, "g2", [a, b, c], [3, 1, 2], tournament="t")
    table = rate(outcomes_from_results(store.results(tournament="t")), make_env())
    store.save_ratings("t", table.history)
    store.save_ratings("other", table.history[:3])
    assert [(p.seq, p.game_id, p.bot, p.mu, p.sigma) for p in store.rating_history("t")] == sorted(
        (p.seq, p.game_id, p.bot, p.mu, p.sigma) for p in table.history)
    store.save_ratings("t", table.history[:3])
    assert len(store.rating_history("t")) == 3 and len(store.rating_history("other")) == 3


# --- rating order ---------------------------------------------------------------------------


def add_scheduled(store: Store, tournament: str | None, round: int, table: int, rotation: int, game: int,
                  versions: list, places: list[int]) -> bool:
    """A game as a tournament stores it: a schedule id (``r1-t2-s0-g3``) and its parts as columns."""
    match = ids.match_id(tournament or "adhoc", f"r{round}-t{table}-s{rotation}")
    game_id = ids.game_id(match, game)
    winner = places.index(1) if places.count(1) == 1 else None
    record = make_record(game_id, [v.name for v in versions], places, winner, decisions=2)
    row = GameRow(id=game_id, game="reactor", seats=[v.id for v in versions], winner=winner, record=record,
                  tournament=tournament, round=round, table_no=table, match_id=match, match_game=game)
    return store.add_game(row, seat_results(record))


def a_small_tournament(bots: list, seed: int = 0) -> list[tuple]:
    """The games of a made-up tournament with random places: 3 rounds x 2 tables x 3 rotations x
    2 games per match, each as the arguments of :func:`add_scheduled` after the store."""
    rng = random.Random(seed)
    games = []
    for rnd in range(1, 4):
        for table in (1, 2):
            seated = rng.sample(bots, 3)
            for rotation in range(3):
                for game in range(2):
                    places = rng.sample([1, 2, 3], 3)
                    games.append(("t", rnd, table, rotation, game, seated[rotation:] + seated[:rotation], places))
    return games


def ratings_of(store: Store, tournament: str | None = "t"):
    """The rating table and the streamed history, as ``Tournament.rate`` computes them."""
    table = rate(outcomes_from_results(store.results(tournament=tournament)), make_env())
    streamed = RatingTable(make_env())
    history = list(rate_points(iter_outcomes(store.iter_results(tournament=tournament)), streamed))
    assert history == table.history
    return {b: (r.mu, r.sigma) for b, r in table.ratings.items()}, table.history


def test_ratings_do_not_depend_on_commit_order(tmp_path):
    """The same games committed in other orders (another worker count, other timing, a resumed
    run) give exactly the same ratings and history: games are rated in schedule order."""
    expected = None
    for attempt, order in enumerate(["schedule", "reversed", "shuffled", "shuffled"]):
        with open_store(tmp_path / f"{attempt}.db") as store:
            bots = add_bots(store, 4)
            store.start_tournament("t", "T", "reactor", {}, 1)
            games = a_small_tournament(bots)
            if order == "reversed":
                games.reverse()
            elif order == "shuffled":
                random.Random(attempt).shuffle(games)
            for game in games:
                assert add_scheduled(store, *game)
            got = ratings_of(store)
            ids = list(dict.fromkeys(r.game_id for r in store.results(tournament="t")))
        if expected is None:
            expected, schedule = got, ids
            assert ids == [f"t/r{r}-t{t}-s{s}-g{g}" for r in (1, 2, 3) for t in (1, 2) for s in range(3) for g in (0, 1)]
        else:
            assert got == expected, f"ratings changed when the games were committed in {order} order"
            assert ids == schedule


def test_results_come_in_schedule_order(store, monkeypatch):
    """Round, table, match (rotation), game number: compared as numbers, not as id text (t10
    after t9, g10 after g9); tournaments in order of creation, then games of no tournament."""
    a, b, c = add_bots(store)
    clock = iter(["2026-01-01T00:00:00.000+00:00", "2026-01-02T00:00:00.000+00:00",
                  "2026-01-02T00:00:00.000+00:00"])
    monkeypatch.setattr(storage.sqlite, "_now", lambda: next(clock, "2026-01-03T00:00:00.000+00:00"))
    for name in ("zeta", "beta", "alpha"):  # created in this order; beta and alpha at the same instant
        store.start_tournament(name, name, "reactor", {}, 1)
    schedule = [(2, 1, 0, 0), (1, 10, 0, 0), (1, 9, 1, 0), (1, 9, 0, 10), (1, 9, 0, 9), (1, 9, 0, 0)]
    for t in ("alpha", None, "zeta", "beta"):
        for rnd, table, rotation, game in schedule:
            assert add_scheduled(store, t, rnd, table, rotation, game, [a, b, c], [1, 2, 3])
    ordered = ["r1-t9-s0-g0", "r1-t9-s0-g9", "r1-t9-s0-g10", "r1-t9-s1-g0", "r1-t10-s0-g0", "r2-t1-s0-g0"]
    assert list(dict.fromkeys(r.game_id for r in store.results(tournament="zeta"))) == [f"zeta/{g}" for g in ordered]
    assert list(dict.fromkeys(r.game_id for r in store.results())) == [
        f"{t}/{g}" for t in ("zeta", "alpha", "beta", "adhoc") for g in ordered]
    assert [r.seat for r in store.results(tournament="beta")] == [0, 1, 2] * len(ordered)
    assert inspect.isgenerator(store.iter_results())  # streamed, not a list


def rating_plan(store: Store, tournament: str | None) -> list[str]:
    return [row[3] for row in store.db.execute("EXPLAIN QUERY PLAN " + storage.schema.RATING_ORDER_SQL,
                                                {"t": tournament, "g": None})]


@pytest.mark.parametrize("steps", [1, 3], ids=["before-the-rating-order", "before-match-ids"])
def test_the_rating_order_streams_from_an_index_also_in_an_upgraded_file(tmp_path, steps):
    """A file written before the rating order existed (schema step 1 only, games in commit
    order), or before games had a match id (steps 1-3: the order cut it out of the game id), is
    upgraded on opening: its games come in schedule order, read down the index without a sort
    (no temp B-tree), however large the tournament."""
    with open_store(tmp_path / "games.db") as games:
        bots = add_bots(games, 4)
        games.start_tournament("t", "T", "reactor", {}, 1)
        for game in reversed(a_small_tournament(bots)):
            add_scheduled(games, *game)
    path = tmp_path / "old.db"
    as_released(tmp_path / "games.db", path, steps)
    with sqlite3.connect(path) as old:
        assert old.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == steps
    old.close()
    with open_store(path) as upgraded, open_store(tmp_path / "new.db") as new:
        assert upgraded.schema_version == len(storage.schema.STEPS)
        indexes = {r[0] for r in upgraded.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "games_schedule" in indexes and "games_tournament" not in indexes
        bots = add_bots(new, 4)
        new.start_tournament("t", "T", "reactor", {}, 1)
        for game in a_small_tournament(bots):
            add_scheduled(new, *game)
        assert ratings_of(upgraded) == ratings_of(new)
        for s in (upgraded, new):
            for tournament in ("t", None):
                plan = rating_plan(s, tournament)
                assert any("USING INDEX games_schedule (tournament=?)" in step for step in plan), plan
                assert not any("TEMP B-TREE" in step for step in plan), plan


def test_only_the_sqlite_store_imports_sqlite_utils():
    """Style rule 9, within storage too: the SQLite store and its schema, not the interface."""
    importers = set()
    for path in (ROOT / "arena").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "sqlite_utils" for n in names):
                importers.add(path.relative_to(ROOT).as_posix())
    assert importers == {"arena/storage/sqlite.py", "arena/storage/schema.py"}


# --- processes ------------------------------------------------------------------------------

# Child processes share the helpers above by importing this test module from its directory.
CHILD_PRELUDE = f"""
import sys, json, time
sys.path[:0] = [{str(ROOT)!r}, {str(Path(__file__).parent)!r}]
from arena.storage import open_store
"""

READER = CHILD_PRELUDE + """
store = open_store(sys.argv[1])
target = int(sys.argv[2])
print("ready", flush=True)
seen, deadline = [], time.monotonic() + 180  # common.PATIENCE_S
while time.monotonic() < deadline:
    # One statement is one snapshot: a reader never sees half a game.
    games, results, logs = store.db.execute(
        "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM results), (SELECT count(*) FROM logs)"
    ).fetchone()
    assert results == 3 * games and logs == 3 * games, (games, results, logs)
    assert len(store.played_ids("t")) >= games
    if not seen or seen[-1] != games:
        seen.append(games)
    if games >= target:
        break
print(json.dumps(seen), flush=True)
"""

WRITER = CHILD_PRELUDE + """
from test_storage import add, add_bots
from arena.core.faults import FaultRecord
store = open_store(sys.argv[1])
bots = [store.bot(f"bot{i}") for i in range(3)]
i = 0
while True:
    add(store, f"g{i}", bots, [1, 2, 3], tournament="t", faults=[FaultRecord(1, "timeout", "late")],
        logs={0: "a" * 2000, 1: "b", 2: "c"})
    i += 1
    print(i, flush=True)
"""


def test_a_second_process_reads_while_one_writes(tmp_path):
    path = tmp_path / "arena.db"
    store = open_store(path)
    bots = add_bots(store)
    store.start_tournament("t", "T", "reactor", {}, 1)
    target = 200
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path), str(target)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "ready"
        for i in range(target):
            add(store, f"g{i}", bots, [1, 2, 3], tournament="t", logs={0: "x", 1: "y", 2: "z"})
            if i % 20 == 0:
                time.sleep(0.02)  # let the reader see the database grow
        out, err = reader.communicate(timeout=PATIENCE_S)
    finally:
        reader.kill()
    assert reader.returncode == 0, err
    seen = json.loads(out)
    assert seen[-1] == target and seen == sorted(seen)
    assert len(seen) > 2, "the reader never saw the database while it was being written"
    store.close()


def test_kill_9_leaves_whole_games_or_nothing(tmp_path):
    path = tmp_path / "arena.db"
    with open_store(path) as s:
        add_bots(s)
        s.start_tournament("t", "T", "reactor", {}, 1)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        committed = 0
        while committed < 60:
            line = writer.stdout.readline()
            assert line, writer.stderr.read()
            committed = int(line)
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    with open_store(path) as s:
        assert s.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        played = s.played_ids("t")
        assert len(played) >= committed  # every game reported as committed survived
        counts = s.counts()
        assert (counts["results"], counts["faults"], counts["logs"]) == (3 * len(played), len(played), 3 * len(played))
        # And the store takes up where the writer stopped.
        bots = [s.bot(f"bot{i}") for i in range(3)]
        assert add(s, f"g{len(played)}", bots, [1, 2, 3], tournament="t")


def test_a_read_only_open_changes_nothing_and_refuses_other_files(tmp_path):
    """Read-only commands must not turn a stray SQLite file (or an empty one) into an arena
    database, nor switch its journal mode; a real arena database reads fine."""
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE foo (x)")
    before = other.read_bytes()
    with pytest.raises(StorageError, match="not an arena database"):
        open_store(str(other), readonly=True)
    assert other.read_bytes() == before
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(StorageError, match="not an arena database"):
        open_store(str(empty), readonly=True)
    assert empty.read_bytes() == b""
    real = tmp_path / "arena.db"
    open_store(str(real)).close()
    with open_store(str(real), readonly=True) as store:
        assert store.tournaments() == [] and store.schema_version == len(storage.schema.STEPS)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.db.execute("CREATE TABLE bar (x)")


def _open_store(path: str) -> str:
    try:
        open_store(path).close()
        return "ok"
    except Exception as exc:  # noqa: BLE001 - reported to the test
        return f"{type(exc).__name__}: {exc}"


def test_processes_opening_a_new_file_at_once_make_its_schema_once(tmp_path):
    """Two runs started together on a new --db raced to create the schema ('table bots already
    exists', 'database is locked'); opening is now one process at a time."""
    import multiprocessing

    for attempt in range(3):
        path = str(tmp_path / f"new{attempt}.db")
        with multiprocessing.get_context("fork").Pool(4) as pool:
            assert pool.map(_open_store, [path] * 4) == ["ok"] * 4
        with open_store(path) as store:
            assert store.schema_version == len(storage.schema.STEPS)


def test_a_write_that_does_not_fit_is_a_storage_error_and_keeps_nothing(tmp_path):
    """A full disk (here: SQLite's page limit) is a StorageError saying nothing was kept, not a
    raw sqlite3 error; the database stays whole."""
    path = tmp_path / "full.db"
    with open_store(str(path)) as store:
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StorageError, match="full.*nothing of this write was kept"):
            store.start_tournament("t", "t", "reactor", {"padding": "x" * 100_000}, "1")
        assert store.tournaments() == []
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_snapshot_does_not_see_a_write_made_during_it(tmp_path):
    """`arena ratings` reads results and fault counts in one snapshot: a game a run commits in
    between is in neither or in both."""
    path = str(tmp_path / "s.db")
    with open_store(path) as writer, open_store(path, readonly=True) as reader:
        with reader.snapshot():
            writer.start_tournament("t", "t", "reactor", {}, "1")
            assert reader.tournaments() == []
        assert [t.id for t in reader.tournaments()] == ["t"]


READ_ONLY_MOUNT = 'set -e; mount --bind "$1" "$1"; mount -o remount,ro,bind "$1"'
READ_ONLY_FOLDER = READ_ONLY_MOUNT + """
exec "$2" -c 'import sys
from arena.storage import open_store
from arena.errors import StorageError
try:
    with open_store(sys.argv[1], readonly=True) as store:
        print([t.id for t in store.tournaments()])
except StorageError as exc:
    print("error:", exc)' "$1/a.db"
"""


def read_in_read_only_folder(folder: Path) -> str:
    """What a read-only open of folder/a.db prints when the folder is a read-only mount."""
    # Skipped only where the mount itself is refused (no mount namespace here), which is probed
    # on its own: a failure of the open under test always fails the test.
    probe = subprocess.run(["unshare", "-m", "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder)],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no read-only mount here: {probe.stderr.strip()}")
    done = subprocess.run(["unshare", "-m", "sh", "-c", READ_ONLY_FOLDER, "sh", str(folder), sys.executable],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(os.geteuid() != 0, reason="a read-only mount needs root")
def test_a_database_in_a_read_only_folder_can_still_be_read(tmp_path: Path) -> None:
    """A published copy on a read-only mount: SQLite's WAL mode wants a -shm file beside it, which
    the folder can not take; the read-only commands read it all the same.  Unmerged commits in a
    -wal file beside it can not be read there, which the error says."""
    clean = tmp_path / "clean"
    clean.mkdir()
    with open_store(str(clean / "a.db")) as store:
        store.start_tournament("t", "t", "reactor", {}, "1")
    assert sorted(p.name for p in clean.iterdir() if not p.name.startswith(".")) == ["a.db"]
    assert read_in_read_only_folder(clean) == "['t']"

    pending = tmp_path / "pending"
    pending.mkdir()
    with open_store(str(tmp_path / "w.db")) as store:
        store.db.execute("PRAGMA wal_autocheckpoint = 0")
        store.start_tournament("t", "t", "reactor", {}, "1")
        for suffix in ("", "-wal"):  # copied while the writer holds commits in its -wal file
            (pending / f"a.db{suffix}").write_bytes((tmp_path / f"w.db{suffix}").read_bytes())
    assert (pending / "a.db-wal").stat().st_size > 0
    assert read_in_read_only_folder(pending).startswith("error: ")
    assert "holds games not merged into it yet" in read_in_read_only_folder(pending)


def test_a_tournament_keeps_the_stop_rules_decision_and_an_old_file_gets_the_column(tmp_path):
    """Version 6: ``tournaments.stop``; a tournament finished without a stop rule has none, and
    finishing it again (a later run) replaces what the last run decided."""
    old = tmp_path / "old.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(storage.schema, "STEPS", storage.schema.STEPS[:5])
        with open_store(old) as s:
            s.start_tournament("t", "t", "reactor", {"a": 1}, "1")
    with open_store(old) as s:  # upgraded on opening
        assert s.tournament("t").stop is None
        s.finish_tournament("t", {"stop": True, "reason": "settled", "pairs": []})
        assert s.tournament("t").stop == {"stop": True, "reason": "settled", "pairs": []}
        grown = s.grow_tournament("t", {"a": 2})
        assert grown.status == "running" and grown.finished is None and grown.spec == {"a": 2}
        s.finish_tournament("t")
        assert s.tournament("t").stop is None


# --- stored views (issue 19: the pages of a 100,000-game database answer at once) ----------------

def test_a_stored_view_comes_back_as_it_was_kept_with_its_stamp(store):
    """A view is kept whole (an infinite bound stays infinite, not null), replaced by the next
    save under its key, and a scope's size counts its games and names the newest."""
    assert store.stored_view("board:t:") is None
    value = {"rows": [{"bot": "a", "high": float("inf"), "mean": None}], "note": "x" * 10_000}
    store.save_view("board:t:", [3, 17, 1], value)
    kept = store.stored_view("board:t:")
    assert kept is not None and kept.stamp == (3, 17, 1) and kept.value == value and kept.made
    store.save_view("board:t:", (4, 18, 1), {"rows": []})
    assert store.stored_view("board:t:").value == {"rows": []} and store.stored_view("board:t:").stamp == (4, 18, 1)
    bots = add_bots(store)
    store.start_tournament("t", "T", "reactor", {}, 1)
    assert store.scope_size(tournament="t") == (0, 0)
    add(store, "g1", bots, [1, 2, 3], tournament="t")
    add(store, "g2", bots, [2, 1, 3])
    newest = store.game_page(limit=1)[0].seq
    assert store.scope_size(tournament="t") == (1, store.game_page(tournament="t", limit=1)[0].seq)
    assert store.scope_size(game="reactor") == store.scope_size() == (2, newest)
    assert store.scope_size(game="powder-keg") == (0, 0)


def full_count(path: Path, **scope: str) -> tuple[int, int]:
    """A scope's (games, newest) as one query over the whole file says them."""
    where = "".join(f" AND {column} = '{value}'" for column, value in scope.items())
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT count(*), coalesce(max(seq), 0) FROM games WHERE 1{where}").fetchone()


def games_played(path: Path) -> dict[str, int]:
    """Each bot's games as one query over the whole file says them."""
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT b.name, (SELECT count(*) FROM results r JOIN bot_versions v"
                                 " ON v.id = r.bot_version_id WHERE v.bot = b.name) FROM bots b").fetchall())


def seats_of(path: Path, bot: str) -> list[tuple[int, ...]]:
    """The bot's results by table size and seat as one query over the whole file says them."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT g.players, r.seat, count(*), sum(coalesce(g.winner = r.seat, 0)), sum(r.place)"
                            " FROM results r JOIN games g ON g.id = r.game_id WHERE r.bot = ?"
                            " GROUP BY 1, 2 ORDER BY 1, 2", [bot]).fetchall()


def test_games_are_counted_again_only_from_the_newest_counted_and_never_from_another_database(tmp_path):
    """The pages ask a scope's size up to three times each (counting 50,000 games took 12 ms),
    and the index page every bot's games: this process counts them in a file once, then only the
    games after the newest it counted (games are only ever added, numbered past the newest).
    Across opens, a new version of a bot, a reader's older snapshot, and a file written over in
    place (the same inode) by another database, the counts are always those of a full count."""
    path = tmp_path / "arena.db"
    scopes = [{"tournament": "t"}, {"game": "reactor"}, {}]
    writer = open_store(path)
    bots = add_bots(writer)
    writer.start_tournament("t", "T", "reactor", {}, 1)
    for n in range(3):
        add(writer, f"g{n}", bots, [1, 2, 3], tournament="t")
    add(writer, "other", bots, [2, 1, 3])
    for step in range(3):  # each open counts from what the last one counted, never a game twice
        with open_store(path, readonly=True) as reader:
            assert [reader.scope_size(**scope) for scope in scopes] == [full_count(path, **scope) for scope in scopes]
            assert {b.name: b.games for b in reader.bots()} == games_played(path)
            assert [reader.bot_seats(f"bot{i}") for i in range(3)] == [seats_of(path, f"bot{i}") for i in range(3)]
        if step == 1:  # a new version: its games are the bot's too
            bots[0] = writer.add_bot_version("bot0", "reactor", "bot0.py", b"print('v2')", CMD, {"ok": True})
        add(writer, f"more{step}", bots, [3, 2, 1], tournament="t")
    assert {b.name: b.games for b in writer.bots()} == games_played(path) == {"bot0": 7, "bot1": 7, "bot2": 7}
    with open_store(path, readonly=True) as reader:
        assert reader.scope_size(tournament="t") == full_count(path, tournament="t")
    add(writer, "outside", bots, [2, 3, 1])  # a game of no tournament: t's count and newest stay
    with open_store(path, readonly=True) as reader:
        assert [reader.scope_size(**scope) for scope in scopes] == [full_count(path, **scope) for scope in scopes]
        assert reader.scope_size(tournament="t")[1] < reader.scope_size()[1]
    older = open_store(path, readonly=True)
    with older.snapshot():
        before = older.scope_size(tournament="t")
        played = {b.name: b.games for b in older.bots()}
        seats = older.bot_seats("bot0")
        add(writer, "later", bots, [1, 3, 2], tournament="t")
        with open_store(path, readonly=True) as reader:  # counts the game the snapshot does not see
            now = reader.scope_size(tournament="t")
            assert now == full_count(path, tournament="t") and now[0] == before[0] + 1 and now[1] > before[1]
            assert {b.name: b.games for b in reader.bots()} == games_played(path) == {b: n + 1 for b, n in played.items()}
            assert reader.bot_games("bot0") == games_played(path)["bot0"]
        assert older.bot_games("bot0") == played["bot0"]
        assert older.scope_size(tournament="t") == before
        assert {b.name: b.games for b in older.bots()} == played and older.bot_seats("bot0") == seats
        with open_store(path, readonly=True) as reader:
            assert reader.bot_seats("bot0") == seats_of(path, "bot0") != seats
    older.close()
    writer.close()

    with open_store(tmp_path / "new.db") as new:  # another database: other games at the same numbers
        bots = add_bots(new)
        new.start_tournament("t", "T", "reactor", {}, 1)
        for n in range(12):
            add(new, f"new{n}", bots, [1, 2, 3], tournament="t" if n % 2 else None)
        new.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    inode = path.stat().st_ino
    for extra in ("-wal", "-shm"):
        path.with_name(path.name + extra).unlink(missing_ok=True)
    path.write_bytes((tmp_path / "new.db").read_bytes())
    assert path.stat().st_ino == inode
    with open_store(path, readonly=True) as reader:
        assert [reader.scope_size(**scope) for scope in scopes] == [full_count(path, **scope) for scope in scopes]
        assert reader.scope_size(tournament="t") == (6, 12)
        assert {b.name: b.games for b in reader.bots()} == games_played(path) == {"bot0": 12, "bot1": 12, "bot2": 12}
        assert [reader.bot_seats(f"bot{i}") for i in range(3)] == [seats_of(path, f"bot{i}") for i in range(3)]


def test_a_file_from_before_stored_views_opens_read_only_where_it_can_not_be_upgraded(tmp_path, monkeypatch):
    """A database of schema step 9 in a place that can not be written (a published copy): the
    pages' views are only a cache, so a read-only open reads it as it is, with no stored view;
    where it can be written, any open upgrades it."""
    with open_store(tmp_path / "games.db") as games:
        add(games, "g1", add_bots(games), [2, 1, 3])
    path = tmp_path / "old.db"
    as_released(tmp_path / "games.db", path, steps=9)
    path.chmod(0o444)
    if os.geteuid() == 0:  # root may write any file: the check it passes is what a user's fails
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if mode == os.W_OK else real(p, mode, **kw))
    with open_store(path, readonly=True) as reader:
        assert reader.schema_version == 9 and reader.stored_view("board:t:") is None
        assert [g.id for g in reader.games()] == ["g1"] and reader.scope_size() == (1, reader.games()[0].seq)
    monkeypatch.undo()
    path.chmod(0o644)
    with open_store(path, readonly=True) as reader:
        assert reader.schema_version == len(storage.schema.STEPS) and reader.stored_view("board:t:") is None


def test_a_bots_rating_history_thins_evenly_and_keeps_both_ends(store):
    """A chart takes at most so many points of a long history: spread evenly over the game
    numbers (its x axis), the first and the last kept: for each evenly spaced game number, the
    bot's first point at or after it, as a thinning of the whole history in Python picks them;
    where the bot sat out a stretch of games, fewer points."""
    from arena.storage import RatingPoint

    played = {"a": [*range(1, 601), *range(610, 2001, 10)], "b": list(range(1, 2001))}  # a: a sparse stretch
    points = sorted((RatingPoint(seq, None, bot, 25.0 + seq / 100, 8.0 - seq / 1000)
                     for bot, seqs in played.items() for seq in seqs), key=lambda p: (p.seq, p.bot))
    store.save_ratings("t", points)
    whole = store.bot_rating_history("t", "a")
    assert whole == [p for p in points if p.bot == "a"] == store.bot_rating_history("t", "a", most=len(whole))
    for most in (2, 37, 500):
        first, last = whole[0].seq, whole[-1].seq
        at = [first + i * (last - first) // (most - 1) for i in range(most)]
        expected = sorted({next(p for p in whole if p.seq >= x) for x in at}, key=lambda p: p.seq)
        thinned = store.bot_rating_history("t", "a", most=most)
        assert thinned == expected and thinned[0] == whole[0] and thinned[-1] == whole[-1]
        assert len(thinned) <= most and len({p.seq for p in thinned}) == len(thinned)
    assert len(store.bot_rating_history("t", "a", most=500)) < 500  # the sparse stretch has fewer games to show
    assert len(store.bot_rating_history("t", "b", most=500)) == 500
