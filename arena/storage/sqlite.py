"""The arena database: bots, tournaments and every finished game, in one SQLite file.

This module and its schema (:mod:`arena.storage.schema`) are the only ones that import
``sqlite_utils`` (style rule 9).  The design follows from how the harness uses it:

* **One writer.**  The tournament coordinator is the only process that writes; viewers and the
  CLI read at the same time.  WAL mode lets readers see a consistent snapshot while the writer
  appends, and ``busy_timeout`` makes a second writer (say ``arena bots add`` during a run) wait
  instead of failing.
* **One transaction per game.**  :meth:`Store.add_game` writes the game, its results, faults and
  logs between ``BEGIN IMMEDIATE`` and ``COMMIT``, so a ``kill -9`` at any moment leaves the whole
  game or nothing.  ``synchronous=NORMAL`` is enough for that in WAL mode: a crash of the process
  never loses a committed game; only a power cut may lose the last few commits (never half of one).
* **Exactly once.**  Game ids are the scheduler's deterministic pairing ids, so resuming a
  tournament skips :meth:`Store.played_ids`, and adding an id that is already stored does nothing.
* **Append-only games; derived ratings.**  Triggers refuse to change or delete games and results;
  the ``ratings`` table is a cache that :meth:`Store.save_ratings` replaces from a recompute.
* **Rating order is schedule order, not commit order.**  TrueSkill updates depend on the order
  of the games, and the commit order depends on worker count and timing, so
  :meth:`Store.iter_results` replays games in the order the scheduler defines (see
  :data:`~arena.storage.schema.RATING_ORDER_SQL`): the same stored results always give the same
  ratings.

Game records are stored as zlib-compressed orjson (about a tenth of the JSON) and returned as
the same dict.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import orjson
from sqlite_utils import Database

from arena.core.deals import KEY_ENV, given_key, new_key
from arena.core.faults import FaultRecord
from arena.errors import NoDatabase, StorageError, UnknownBot
from arena.storage import schema
from arena.storage.locks import file_lock, is_locked, sidecar
from arena.storage.records import content_sha256, decode_record, encode_record
from arena.storage.rows import (
    BotSummary,
    BotVersion,
    GameRow,
    GameSummary,
    RatingPoint,
    RatingPointLike,
    ResultRow,
    SeatResult,
    StoredView,
    Tournament,
)
from arena.storage.store import Store

DEFAULT_PATH = "arena.db"
log = logging.getLogger("arena.storage")

MEMORY = ":memory:"  # SQLite's name for a database that lives in this connection only
URL = "sqlite://"  # sqlite:///PATH names a file (PATH relative, or absolute with a fourth slash)
# A second writer waits this long for the lock before giving up with "database is locked".
BUSY_TIMEOUT_MS = 10_000
CACHE_KB = 256


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _view_json(value: dict[str, Any]) -> bytes:
    """A stored view as JSON: the json module's, which keeps an infinite bound infinite (orjson
    would write it as null)."""
    return json.dumps(value, separators=(",", ":")).encode()


def _check_folder(path: str) -> None:
    """A database file can only be made in a folder that exists."""
    folder = Path(path).parent
    if not folder.is_dir():
        raise StorageError(f"no folder {folder} for the database {path}; create it, or pass another file")


def _refuse_hard_links(path: str) -> None:
    """SQLite names a database's WAL and journal after the path it was opened by, so two names
    of one file (hard links) each get their own: a writer through one name and a reader or a
    writer through the other miss each other's changes, and can corrupt the file.  The
    tournament lock beside the database would not hold either.  Symlinks are fine: they resolve."""
    try:
        links = os.stat(path).st_nlink
    except FileNotFoundError:
        return
    if links > 1:
        raise StorageError(
            f"{path} has {links} hard links: SQLite keeps a journal per name, so using one database "
            "under two names can corrupt it; copy it (cp) or use one of its names only, with a symlink for others"
        )


def _file(location: str) -> str:
    """The database file a location names, or :data:`MEMORY`: a path as it is, ``:memory:``, or
    a URL as SQLAlchemy spells them: ``sqlite:///arena.db``, ``sqlite:////srv/arena.db``,
    ``sqlite://`` (in memory)."""
    if not location:
        raise StorageError(f"the database's name is empty; give a file such as {DEFAULT_PATH}")
    if "\0" in location:
        raise StorageError(f"{location!r} has a NUL byte in it, which no file name may hold")
    if location[:len(URL)].lower() != URL:
        return location
    rest = location[len(URL):]
    if not rest:
        return MEMORY
    if not rest.startswith("/"):
        raise StorageError(f"{location} names a host, but a SQLite database is a file: sqlite:///PATH "
                           "(three slashes; four for an absolute path, as in sqlite:////srv/arena.db)")
    if rest == "/":
        raise StorageError(f"{location} names no file; give one, as in sqlite:///arena.db")
    return rest[1:]


def _create_private(path: str) -> None:
    """Create a new database file readable by its owner only (SQLite gives its -wal and -shm
    files the same mode): it will hold the deal key, and a bot without bubblewrap runs under a
    uid of its own that must not read it."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def _make_private(path: str) -> None:
    """Take others' access away from a database file made before files were made private, now
    that it holds the deal key (the file stays its owner's, as it was)."""
    for name in (path, f"{path}-wal", f"{path}-shm"):
        with suppress(OSError):
            mode = os.stat(name).st_mode & 0o777
            if mode & 0o077:
                os.chmod(name, mode & 0o700)
                log.warning("%s could be read by other users; it now holds the key of its deals, so only its "
                            "owner may read it", name)


def _fault_rows(game_id: str, bots: list[str], faults: Iterable[FaultRecord]) -> list[tuple[Any, ...]]:
    """The rows of a game's faults, each checked against the table (its seat there, its bot that
    seat's): a fault of no seat at the table is refused, not stored under a wrong name."""
    rows = []
    for f in faults:
        if not 0 <= f.seat < len(bots):
            raise StorageError(f"game {game_id!r}: a fault names seat {f.seat}, which is not at the table")
        if f.bot is not None and f.bot != bots[f.seat]:
            raise StorageError(f"game {game_id!r}: a fault of seat {f.seat} names bot {f.bot!r}, "
                               f"but {bots[f.seat]!r} sits there")
        rows.append((game_id, f.seat, bots[f.seat], f.kind, f.message, f.decision, int(f.collateral)))
    return rows


@dataclass(frozen=True, slots=True)
class _Counted:
    """What :meth:`SqliteStore._counted` counted: the value, the newest game's number and id
    (by which a later count knows the file holds the same database)."""

    value: Any
    newest: int
    newest_id: str


T = TypeVar("T")

# Per database file (device, inode), per kind of count: what this process counted.
_COUNTED: dict[tuple[int, int], dict[tuple[Any, ...], _Counted]] = {}


class SqliteStore(Store):
    """The arena database in one SQLite file (or in memory, for tests and throwaway runs)."""

    @classmethod
    def open(cls, location: str, *, create: bool = True, readonly: bool = False) -> SqliteStore:
        """The database at ``location`` (see :func:`_file` for the spellings)."""
        path = _file(location)
        if (readonly or not create) and (path == MEMORY or not os.path.exists(path)):
            raise NoDatabase(f"no database at {location}")
        return cls(path, readonly=readonly)

    @classmethod
    def exists(cls, location: str) -> bool:
        """Whether the file is there; a database in memory never is before it is opened."""
        path = _file(location)
        if path == MEMORY:
            return False
        if os.path.exists(path):
            return True
        _check_folder(path)
        return False

    def __init__(self, path: str, *, readonly: bool = False) -> None:
        """``path``: a file, or :data:`MEMORY`.  ``readonly``: open an existing arena database for
        reading only (no schema change, no WAL switch; a file that is not an arena database is
        refused, never converted)."""
        self.path = path
        self._bot_cache: Path | None = None  # made on first use, for a database in memory
        self._identity: tuple[int, int] | None = None  # the file, for what this process counted in it
        try:
            if self.path == MEMORY:
                self.db = Database(memory=True)
            else:
                if Path(self.path).is_dir():
                    raise StorageError(f"{self.path} is a directory; give a database file such as {DEFAULT_PATH}")
                _refuse_hard_links(self.path)
                _check_folder(self.path)
                if readonly:
                    self.db = self._connect_readonly()
                else:
                    _create_private(self.path)
                    self.db = Database(self.path)
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self.db.execute("PRAGMA foreign_keys = ON")
            if readonly:
                self._check_readable()
                pending = {m.name for m in schema.migrations().pending(self.db)}
                # Only a cache missing (the stored views) and no right to add it: read without it.
                if pending and (pending - schema.OPTIONAL_FOR_READING or os.access(self.path, os.W_OK)):
                    self._upgrade()
            elif self.path != MEMORY:
                # Two processes opening a new (or older) file at once would both create (or
                # upgrade) its schema: one at a time.
                # Before anything is written to it or beside it (the lock file).  Safe outside
                # the lock: arena makes _sqlite_migrations before any other table of a new file.
                self._refuse_foreign()
                with file_lock(sidecar(self.path, "lock")):
                    self.db.enable_wal()
                    self.db.execute("PRAGMA synchronous = NORMAL")
                    # The coordinator mostly appends; a small page cache keeps its memory flat over a
                    # long tournament (the default 2 MB fills slowly and looks like a leak).
                    self.db.execute(f"PRAGMA cache_size = -{CACHE_KB}")
                    self._migrate()
            else:
                self._migrate()
        except (sqlite3.DatabaseError, StorageError, OSError) as e:
            if hasattr(self, "db"):
                self.db.close()
            if isinstance(e, StorageError):
                raise
            if isinstance(e, OSError):  # its lock file could not be made: the folder is not writable
                raise StorageError(f"cannot write beside {self.path} ({e.strerror}); check the folder's "
                                   "permissions, or pass another database file") from e
            raise StorageError(
                f"cannot open {self.path} as an arena database ({e}); check the path, or pass another database file"
            ) from e
        if self.path != MEMORY:
            with suppress(OSError):
                st = os.stat(self.path)
                self._identity = (st.st_dev, st.st_ino)

    def _connect_readonly(self) -> Database:
        path = Path(self.path).resolve()
        uri = f"file:{quote(str(path))}?mode=ro"
        db = Database(sqlite3.connect(uri, uri=True, check_same_thread=False))
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            # A database in WAL mode needs its -shm file, which a read-only folder (a read-only
            # mount, a published copy) can not hold.  No writer can work in such a folder either,
            # so the file can not change: read it as immutable, unless a -wal file holds commits
            # that only a writable folder can merge.
            wal = path.with_name(path.name + "-wal")
            if os.access(path.parent, os.W_OK):
                raise
            if wal.exists() and wal.stat().st_size > 0:
                raise StorageError(f"{self.path} is in a folder that can not be written, and {wal.name} beside it "
                                   "holds games not merged into it yet: open it once where its folder is writable "
                                   "(or copy the database and its -wal file to such a folder)") from None
            db.close()
            db = Database(sqlite3.connect(f"{uri}&immutable=1", uri=True, check_same_thread=False))
        return db

    def _upgrade(self) -> None:
        """A file written by an older arena, opened read-only: bring it up to this schema first
        (once, under the schema lock, as any writing open does), since the read-only commands'
        queries need the columns that later schema steps add."""
        self.db.close()
        if not os.access(self.path, os.W_OK):
            raise StorageError(f"{self.path} was written by an older arena and must be upgraded, which needs write "
                               "access: open it once with a command that writes (e.g. `arena run`)")
        SqliteStore(self.path).close()
        self.db = self._connect_readonly()
        self.db.execute("PRAGMA foreign_keys = ON")

    def _check_readable(self) -> None:
        """A read-only open: the file must already hold an arena schema this code knows."""
        if "_sqlite_migrations" not in self.db.table_names():
            raise StorageError(f"{self.path} is not an arena database (no arena tables in it)")
        known = {step.__name__ for step in schema.STEPS}
        applied = [m.name for m in schema.migrations().applied(self.db)]
        unknown = [name for name in applied if name not in known]
        if unknown:
            raise StorageError(
                f"{self.path} was written by a newer arena (schema step {unknown[0]!r} is unknown here); "
                "upgrade arena to open it"
            )
        if not applied:
            raise StorageError(f"{self.path} is not an arena database (no arena schema applied)")

    def _refuse_foreign(self) -> None:
        """A writing open: an empty (or new) file becomes an arena database, but a SQLite file that
        holds tables and no arena schema is someone else's, and is refused, never converted."""
        tables = self.db.table_names()
        if tables and "_sqlite_migrations" not in tables:
            raise StorageError(f"{self.path} is not an arena database (it holds other tables and no arena "
                               "schema); pass another database file, or a new one")

    @contextmanager
    def running(self, tournament: str) -> Iterator[None]:
        """Hold the right to play ``tournament`` on this database: a second run of it at the same
        time (which would play its matches twice and store games after a match was over) is
        refused.  The lock dies with the process, however it ends."""
        if self.path == MEMORY:
            yield
            return
        try:
            with file_lock(sidecar(self.path, f"{tournament}.lock"), wait=False):
                yield
        except BlockingIOError:
            raise StorageError(
                f"tournament {tournament!r} is already being played on {self.path} by another process; "
                "wait for it to end (or stop it), then run the same command again"
            ) from None

    def being_played(self, tournament: str) -> bool:
        """Whether a process is playing ``tournament`` on this database now (holds its
        :meth:`running` lock).  Takes nothing and creates nothing, so a read-only store may ask."""
        if self.path == MEMORY:
            return False
        return is_locked(sidecar(self.path, f"{tournament}.lock"))

    def _migrate(self) -> None:
        migrations = schema.migrations()
        known = {step.__name__ for step in schema.STEPS}
        unknown = [m.name for m in migrations.applied(self.db) if m.name not in known]
        if unknown:
            raise StorageError(
                f"{self.path} was written by a newer arena (schema step {unknown[0]!r} is unknown here); "
                "upgrade arena to open it"
            )
        if migrations.pending(self.db):
            migrations.apply(self.db)

    def close(self) -> None:
        """Close the connection (a WAL file is checkpointed when the last one closes), and remove
        the bot cache of a database in memory."""
        self.db.close()
        if self._bot_cache is not None:
            shutil.rmtree(self._bot_cache, ignore_errors=True)
            self._bot_cache = None

    def bot_cache(self) -> Path:
        """``.arena-bots`` beside the database file (the databases of a folder share it: each
        version is written once, named by bot, version and hash); for a database in memory, a
        private temporary folder that :meth:`close` removes."""
        if self.path != MEMORY:
            return Path(self.path).resolve().parent / ".arena-bots"
        if self._bot_cache is None:
            self._bot_cache = Path(tempfile.mkdtemp(prefix="arena-bots-"))
        return self._bot_cache

    @property
    def schema_version(self) -> int:
        """How many schema steps this file has had applied."""
        return len(schema.migrations().applied(self.db))

    @property
    def journal_mode(self) -> str:
        """``"wal"`` for a file database, ``"memory"`` for an in-memory one."""
        return self.db.journal_mode

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads in this block all see one state of the database, even while a run writes to it
        (WAL readers keep the snapshot their transaction began with).  A snapshot taken inside
        another is the outer one: a view that reads in one may be part of a larger read."""
        if self.db.conn.in_transaction:
            yield
            return
        self.db.conn.execute("BEGIN")
        try:
            self.db.conn.execute("SELECT 1 FROM games LIMIT 1").fetchall()  # the snapshot starts here
            yield
        finally:
            if self.db.conn.in_transaction:
                self.db.conn.execute("COMMIT")

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction.  IMMEDIATE takes the write lock up front, so a concurrent
        writer waits (busy_timeout) instead of failing half-way through."""
        try:
            self.db.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            raise StorageError(
                f"cannot write to {self.path} ({e}); another process is writing to it, wait for it to finish"
            ) from e
        try:
            yield
            self.db.conn.execute("COMMIT")
        except BaseException as e:
            if self.db.conn.in_transaction:
                self.db.conn.execute("ROLLBACK")
            if isinstance(e, sqlite3.DatabaseError) and not isinstance(e, sqlite3.IntegrityError):
                # A full disk, a read-only file, a damaged page: nothing of this write was kept.
                raise StorageError(f"cannot write to {self.path} ({e}); nothing of this write was kept") from e
            raise

    def _one(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> dict[str, Any] | None:
        return next(self.db.query(sql, params), None)

    def _all(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return list(self.db.query(sql, params))

    def remove(self) -> None:
        """Close the store and delete its file with its WAL, shared memory and lock files (for a
        database that was created by mistake; the caller checks that it holds nothing)."""
        self.close()
        if self.path == MEMORY:
            return
        for name in (self.path, f"{self.path}-wal", f"{self.path}-shm", sidecar(self.path, "lock")):
            with suppress(FileNotFoundError):
                os.unlink(name)

    def counts(self) -> dict[str, int]:
        """Rows per table (for ``arena db info`` and tests)."""
        tables = ["bots", "bot_versions", "tournaments", "games", "results", "faults", "logs", "ratings"]
        return {t: self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}

    # --- bots -----------------------------------------------------------------------------

    def add_bot_version(
        self,
        name: str,
        game: str,
        filename: str,
        content: bytes,
        command: list[str],
        check_report: dict[str, Any] | None = None,
        make_current: bool = False,
    ) -> BotVersion:
        """Register a bot's file; the same content again returns its existing version, which
        becomes the current one only if ``make_current`` (a new version always does)."""
        if not name or name != name.strip():
            raise StorageError(f"bot name {name!r} must be non-empty without surrounding spaces")
        sha = content_sha256(content)
        with self._write():
            bot = self._one("SELECT game, removed FROM bots WHERE name = ?", [name])
            if bot is None:
                self.db.execute("INSERT INTO bots (name, game, created) VALUES (?, ?, ?)", [name, game, _now()])
            elif bot["game"] != game:
                raise StorageError(
                    f"bot {name!r} is registered for {bot['game']}, not {game}; choose another name for this bot"
                )
            elif bot["removed"] is not None:  # a removed name taken again
                self.db.execute("UPDATE bots SET removed = NULL WHERE name = ?", [name])
                make_current = True
            same = self._one("SELECT * FROM bot_versions WHERE bot = ? AND sha256 = ?", [name, sha])
            if same is not None:
                if orjson.loads(same["command"]) != list(command):
                    raise StorageError(
                        f"bot {name!r} version {same['version']} has this content but runs with "
                        f"{orjson.loads(same['command'])}; register the new command under another bot name"
                    )
                version_id = same["id"]
                if make_current:
                    self.db.execute("UPDATE bots SET current = ? WHERE name = ?", [version_id, name])
            else:
                number = self.db.execute(
                    "SELECT coalesce(max(version), 0) + 1 FROM bot_versions WHERE bot = ?", [name]
                ).fetchone()[0]
                version_id = self.db.execute(
                    "INSERT INTO bot_versions (bot, version, sha256, filename, content, command, added, check_report)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [name, number, sha, filename, content, orjson.dumps(list(command)).decode(), _now(),
                     orjson.dumps(check_report or {}).decode()],
                ).lastrowid
                self.db.execute("UPDATE bots SET current = ? WHERE name = ?", [version_id, name])
        return self.bot_version(version_id)

    _VERSION_SQL = (
        "SELECT v.id, v.bot, b.game, v.version, v.sha256, v.filename, v.command, v.added, v.check_report"
        " FROM bot_versions v JOIN bots b ON b.name = v.bot"
    )

    @staticmethod
    def _bot_version(row: dict[str, Any]) -> BotVersion:
        return BotVersion(
            id=row["id"], name=row["bot"], game=row["game"], version=row["version"], sha256=row["sha256"],
            filename=row["filename"], command=orjson.loads(row["command"]), added=row["added"],
            check_report=orjson.loads(row["check_report"]),
        )

    def bot(self, name: str) -> BotVersion:
        """The bot's current version (the one registered last)."""
        row = self._one(self._VERSION_SQL + " WHERE v.id = b.current AND b.name = ? AND b.removed IS NULL", [name])
        if row is None:
            names = [r["name"] for r in self._all("SELECT name FROM bots WHERE instr(name, '@') = 0"
                                                  " AND removed IS NULL ORDER BY name")]
            known = ", ".join(names) if names else "none yet"
            raise UnknownBot(f"no bot named {name!r} (bots: {known}); add it with `arena bots add`")
        return self._bot_version(row)

    def bot_version(self, version_id: int) -> BotVersion:
        """One version by id (games store version ids, so a replay can find the exact file)."""
        row = self._one(self._VERSION_SQL + " WHERE v.id = ?", [version_id])
        if row is None:
            raise UnknownBot(f"no bot version with id {version_id}; `arena bots` lists the bots there are")
        return self._bot_version(row)

    def bot_history(self, name: str) -> list[BotVersion]:
        """Every version of a bot, oldest first (empty if there is no such bot)."""
        return [self._bot_version(row) for row in
                self._all(self._VERSION_SQL + " WHERE v.bot = ? ORDER BY v.version", [name])]

    def bot_games(self, name: str) -> int:
        """How many stored games the bot played (all its versions)."""
        # By its versions: also those played under their own labels (NAME@N) or an old name.
        with self.snapshot():
            ids = [row[0] for row in self.db.execute("SELECT id FROM bot_versions WHERE bot = ?", [name])]
            played = self._games_by_version()
        return sum(played.get(i, 0) for i in ids)

    def bot_seats(self, name: str) -> list[tuple[int, int, int, int, int]]:
        """Results by table size and seat, summed in SQL over the bot's rows (``results_bot``),
        each joined to its game through the covering index of step 10 (not the game's row)."""
        sums = "g.players, r.seat, count(*), sum(coalesce(g.winner = r.seat, 0)), sum(r.place)"

        def count(since: int) -> dict[tuple[int, int], tuple[int, int, int]]:
            if since == 0:
                rows = self.db.execute(
                    f"SELECT {sums} FROM results r JOIN games g{self._indexed('games_outcome')} ON g.id = r.game_id"
                    " WHERE r.bot = ? GROUP BY g.players, r.seat", [name]).fetchall()
            else:  # the games stored since first (CROSS JOIN keeps that order), then their seats
                rows = self.db.execute(f"SELECT {sums} FROM games g CROSS JOIN results r ON r.game_id = g.id"
                                       " WHERE g.seq > ? AND r.bot = ? GROUP BY g.players, r.seat",
                                       [since, name]).fetchall()
            return {(players, seat): tuple(rest) for players, seat, *rest in rows}

        def add(old: dict[tuple[int, int], tuple[int, int, int]],
                new: dict[tuple[int, int], tuple[int, int, int]]) -> dict[tuple[int, int], tuple[int, int, int]]:
            return {k: tuple(a + b for a, b in zip(old.get(k, (0, 0, 0)), new.get(k, (0, 0, 0))))
                    for k in old.keys() | new.keys()}

        # Counted once, then only in the games stored since (:meth:`_counted`): 33,000 games
        # took 90 ms, and the bot's page is made again after each game of a running tournament.
        by_seat = self._counted(("seats", name), count, add)
        return [(players, seat, *by_seat[players, seat]) for players, seat in sorted(by_seat)]

    def _indexed(self, index: str) -> str:
        """`` INDEXED BY index`` where the file has it (SQLite's planner takes the primary key's
        index, which is not covering), nothing in a file read without upgrading it."""
        row = self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", [index]).fetchone()
        return f" INDEXED BY {index}" if row else ""

    def bot_content(self, version_id: int) -> bytes:
        """The stored file (or tar of a bot directory) of one version, byte for byte."""
        row = self.db.execute("SELECT content FROM bot_versions WHERE id = ?", [version_id]).fetchone()
        if row is None:
            raise UnknownBot(f"no bot version with id {version_id}; `arena bots` lists the bots there are")
        return bytes(row[0])

    def bots(self, game: str | None = None) -> list[BotSummary]:
        """Every bot (optionally of one game), by name, with games played."""
        with self.snapshot():
            rows = self._all(
                "SELECT b.name, b.game, cur.version,"
                " (SELECT json_group_array(v.id) FROM bot_versions v WHERE v.bot = b.name) AS versions"
                " FROM bots b JOIN bot_versions cur ON cur.id = b.current AND cur.bot = b.name"
                " WHERE b.removed IS NULL AND (? IS NULL OR b.game = ?) ORDER BY b.name",
                [game, game],
            )
            played = self._games_by_version()
        return [BotSummary(row["name"], row["game"], row["version"], len(ids := orjson.loads(row["versions"])),
                           sum(played.get(i, 0) for i in ids)) for row in rows]

    def _games_by_version(self) -> dict[int, int]:
        """Games each bot version played: counted in full once (the index page lists every bot,
        and 12 bots of 33,000 games each took 27 ms), then only in the games stored since."""

        def count(since: int) -> dict[int, int]:
            if since == 0:  # down the index of results by version
                rows = self.db.execute("SELECT bot_version_id, count(*) FROM results GROUP BY 1").fetchall()
            else:  # the new games first (CROSS JOIN keeps that order), then their seats
                rows = self.db.execute("SELECT r.bot_version_id, count(*) FROM games g CROSS JOIN results r"
                                       " ON r.game_id = g.id WHERE g.seq > ? GROUP BY 1", [since]).fetchall()
            return dict(rows)

        def add(old: dict[int, int], new: dict[int, int]) -> dict[int, int]:
            return {v: old.get(v, 0) + new.get(v, 0) for v in old.keys() | new.keys()}

        return self._counted(("games by version",), count, add)

    def _in_use(self, name: str) -> tuple[int, list[str], list[str]]:
        """Games its versions played, and the tournaments (running ones apart) that began with one."""
        ids = {row["id"] for row in self._all("SELECT id FROM bot_versions WHERE bot = ?", [name])}
        games = self.db.execute("SELECT count(*) FROM results WHERE bot_version_id IN"
                                " (SELECT id FROM bot_versions WHERE bot = ?)", [name]).fetchone()[0]
        finished, running = [], []
        for row in self._all("SELECT id, spec, status FROM tournaments ORDER BY id"):
            if ids & set(orjson.loads(row["spec"]).get("bot_versions", {}).values()):
                (finished if row["status"] == "finished" else running).append(row["id"])
        return games, finished, running

    def remove_bot(self, name: str) -> int:
        """Take ``name`` out of use: gone if it never played, else hidden with its games kept."""
        self.bot(name)  # an unknown name lists the bots there are
        with self._write():
            games, finished, running = self._in_use(name)
            if running:
                raise StorageError(f"bot {name!r} plays in tournament {running[0]!r}, which is not finished; "
                                   "finish it first (run it again), or keep the bot")
            if games or finished:
                self.db.execute("UPDATE bots SET removed = ? WHERE name = ?", [_now(), name])
            else:
                self.db.execute("UPDATE bots SET current = NULL WHERE name = ?", [name])
                self.db.execute("DELETE FROM bot_versions WHERE bot = ?", [name])
                self.db.execute("DELETE FROM bots WHERE name = ?", [name])
        return games

    def rename_bot(self, name: str, new: str) -> int:
        """Give ``name``'s versions to ``new``; its games keep the name they were played under."""
        version = self.bot(name)
        with self._write():
            if self._one("SELECT name FROM bots WHERE name = ?", [new]) is not None:
                raise StorageError(f"there is a bot named {new!r} already (or there was: its games keep "
                                   "the name); choose another name")
            games, finished, running = self._in_use(name)
            if running:
                raise StorageError(f"bot {name!r} plays in tournament {running[0]!r}, which is not finished; "
                                   "finish it first (run it again), then rename it")
            self.db.execute("INSERT INTO bots (name, game, created, current) VALUES (?, ?, ?, ?)",
                            [new, version.game, _now(), version.id])
            self.db.execute("UPDATE bot_versions SET bot = ? WHERE bot = ?", [new, name])
            if games or finished:
                self.db.execute("UPDATE bots SET removed = ? WHERE name = ?", [_now(), name])
            else:
                self.db.execute("UPDATE bots SET current = NULL WHERE name = ?", [name])
                self.db.execute("DELETE FROM bots WHERE name = ?", [name])
        return games

    # --- tournaments ----------------------------------------------------------------------

    def start_tournament(
        self, id: str, name: str, game: str, spec: dict[str, Any], seed: str | int | None
    ) -> Tournament:
        """Create a tournament, or return it unchanged when resuming with the same spec."""
        with self._write():
            old = self._one("SELECT * FROM tournaments WHERE id = ?", [id])
            if old is None:
                self.db.execute(
                    "INSERT INTO tournaments (id, name, game, spec, seed, created, status)"
                    " VALUES (?, ?, ?, ?, ?, ?, 'running')",
                    [id, name, game, _canonical(spec).decode(), seed, _now()],
                )
        if old is not None:
            stored = self._tournament(old)
            diffs = [
                what for what, same in [
                    ("spec", _canonical(stored.spec) == _canonical(spec)),
                    ("game", stored.game == game),
                    ("seed", stored.seed == seed),
                ] if not same
            ]
            if diffs:
                raise StorageError(
                    f"tournament {id!r} already exists in {self.path} with a different {' and '.join(diffs)}; "
                    "to resume it use the same tournament file, otherwise give the tournament another name "
                    "or use another database"
                )
            return stored
        return self.tournament(id)

    def deal_key(self) -> bytes:
        """The deal key, made at the first call on this database (two processes asking at once
        agree: the first insert wins, the other reads it)."""
        row = self.db.execute("SELECT value FROM secrets WHERE name = 'deal_key'").fetchone()
        if row is None:
            with self._write():
                self.db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES ('deal_key', ?)", [new_key()])
            row = self.db.execute("SELECT value FROM secrets WHERE name = 'deal_key'").fetchone()
            if self.path != MEMORY:
                _make_private(self.path)
        key = bytes(row[0])
        given = given_key()
        if given is not None and given != key:
            raise StorageError(f"{self.path} has a deal key of its own, not the one {KEY_ENV} gives: that key is "
                               "taken only by a database that has none yet (a new one); unset it, or use a new --db")
        return key

    def finish_tournament(self, id: str, stop: dict[str, Any] | None = None) -> None:
        """Mark a tournament finished (its games stay; resuming it plays nothing new)."""
        self.tournament(id)  # unknown id: a clear error rather than a silent no-op
        with self._write():
            self.db.execute(
                "UPDATE tournaments SET status = 'finished', finished = ?, stop = ? WHERE id = ?",
                [_now(), _canonical(stop).decode() if stop is not None else None, id]
            )

    def grow_tournament(self, id: str, spec: dict[str, Any]) -> Tournament:
        """A longer schedule for a stored tournament (see :meth:`Store.grow_tournament`)."""
        self.tournament(id)
        with self._write():
            self.db.execute("UPDATE tournaments SET spec = ?, status = 'running', finished = NULL WHERE id = ?",
                            [_canonical(spec).decode(), id])
        return self.tournament(id)

    @staticmethod
    def _tournament(row: dict[str, Any]) -> Tournament:
        stop = row.get("stop")
        return Tournament(**{**row, "spec": orjson.loads(row["spec"]),
                             "stop": orjson.loads(stop) if stop is not None else None})

    def tournament(self, id: str) -> Tournament:
        """One tournament; a clear error if the id is unknown."""
        row = self._one("SELECT * FROM tournaments WHERE id = ?", [id])
        if row is None:
            raise StorageError(f"no tournament {id!r} in {self.path}; `arena tournaments` lists them")
        return self._tournament(row)

    def tournaments(self) -> list[Tournament]:
        """Every tournament, newest first."""
        return [self._tournament(r) for r in self._all("SELECT * FROM tournaments ORDER BY created DESC, id")]

    # --- games ----------------------------------------------------------------------------

    def add_game(
        self,
        game: GameRow,
        results: list[SeatResult],
        faults: Iterable[FaultRecord] = (),
        logs: dict[int, str] | None = None,
    ) -> bool:
        """Store a finished game, its results, faults and logs in ONE transaction.

        Returns False (and writes nothing) if the id is already stored: a game reported twice
        is stored once.  Raises :class:`StorageError` and writes nothing if any part is bad.
        """
        self._check_game(game, results)
        blob = encode_record(game.record)
        try:
            with self._write():
                old = self.db.execute("SELECT tournament FROM games WHERE id = ?", [game.id]).fetchone()
                if old is not None:
                    if old[0] != game.tournament:
                        raise StorageError(
                            f"game id {game.id!r} is already stored for tournament {old[0]!r}; game ids must be "
                            "unique in a database (prefix them with the tournament id)"
                        )
                    return False
                bots = self._seat_bots(game)
                fault_rows = _fault_rows(game.id, bots, faults)
                self._insert_game(game, blob)
                self.db.conn.executemany(
                    "INSERT INTO results (game_id, seat, bot_version_id, bot, place, points, forfeited)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(game.id, r.seat, game.seats[r.seat], bots[r.seat], r.place, int(r.seat == game.winner),
                      int(r.forfeited)) for r in results],
                )
                if fault_rows:  # most games have none
                    self.db.conn.executemany(
                        "INSERT INTO faults (game_id, seat, bot, kind, message, decision, collateral)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)",
                        fault_rows,
                    )
                self.db.conn.executemany(
                    "INSERT INTO logs (game_id, seat, stderr) VALUES (?, ?, ?)",
                    [(game.id, seat, text) for seat, text in sorted((logs or {}).items())],
                )
        except sqlite3.IntegrityError as e:
            raise StorageError(f"game {game.id!r} was not stored ({e}); nothing of it was written") from e
        return True

    def _insert_game(self, game: GameRow, blob: bytes) -> None:
        """The game's own row, numbered one past the newest (``seq``: the order of commits)."""
        self.db.execute(
            "INSERT INTO games (id, seq, tournament, game, variants, players, seats, round, table_no,"
            " match_id, match_game, seed, started, finished, capped, winner, duration_ms, record)"
            " VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM games), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " ?, ?, ?, ?, ?)",
            [game.id, game.tournament, game.game, orjson.dumps(list(game.variants)).decode(),
             len(game.seats), orjson.dumps(list(game.seats)).decode(), game.round, game.table_no,
             game.match_id, game.match_game, game.seed, game.started, game.finished or _now(),
             int(game.capped), game.winner, game.duration_ms, blob],
        )

    @staticmethod
    def _check_game(game: GameRow, results: list[SeatResult]) -> None:
        """Refuse inconsistent games before touching the database."""
        n = len(game.seats)
        if not 2 <= n <= 6:
            raise StorageError(f"game {game.id!r} has {n} seats; a game has 2 to 6")
        if sorted(r.seat for r in results) != list(range(n)):
            raise StorageError(f"game {game.id!r}: results must cover seats 0-{n - 1} once each")
        if any(not 1 <= r.place <= n for r in results):
            raise StorageError(f"game {game.id!r}: places must be from 1 to {n}")
        if game.winner is not None and not 0 <= game.winner < n:
            raise StorageError(f"game {game.id!r}: winner {game.winner} is not a seat")
        claimed = game.record.get("result")
        if claimed is not None:
            places = [r.place for r in sorted(results, key=lambda r: r.seat)]
            if list(claimed.get("places", places)) != places or claimed.get("winner", game.winner) != game.winner:
                raise StorageError(f"game {game.id!r}: the results differ from the game record's result")

    def _seat_bots(self, game: GameRow) -> list[str]:
        """Bot names in seat order; every version must exist and be a bot of this game."""
        ids = sorted(set(game.seats))
        rows = self.db.execute(
            "SELECT v.id, v.bot, b.game FROM bot_versions v JOIN bots b ON b.name = v.bot"
            f" WHERE v.id IN ({', '.join('?' * len(ids))})",
            ids,
        ).fetchall()
        found = {vid: (bot, g) for vid, bot, g in rows}
        for vid in game.seats:
            if vid not in found:
                raise StorageError(f"game {game.id!r}: bot version {vid} is not in the database; add the bot first")
            if found[vid][1] != game.game:
                raise StorageError(f"game {game.id!r}: bot {found[vid][0]!r} plays {found[vid][1]}, not {game.game}")
        names = [found[vid][0] for vid in game.seats]
        if not game.seat_names:
            return names
        for seat, (label, bot, vid) in enumerate(zip(game.seat_names, names, game.seats, strict=True)):
            if label == bot:
                continue
            if not label.startswith(bot + "@"):
                raise StorageError(f"game {game.id!r}: seat {seat} is called {label!r} but plays a version of {bot!r}")
            # A version played under its own label is a row of its own in bots (the results'
            # foreign key), never listed as a bot: names may not hold an "@".
            self.db.execute("INSERT OR IGNORE INTO bots (name, game, created, current) VALUES (?, ?, ?, ?)",
                            [label, game.game, _now(), vid])
        return list(game.seat_names)

    def tournament_size(self, tournament_id: str) -> tuple[int, int]:
        """Games and matches, counted from the schedule index alone (it holds both columns); a
        game of no match counts as a match of its own."""
        row = self.db.execute(
            "SELECT count(*), count(DISTINCT match_id) + sum(match_id IS NULL) FROM games WHERE tournament = ?",
            [tournament_id]).fetchone()
        return row[0], row[1] or 0

    def played_ids(self, tournament_id: str) -> set[str]:
        """Ids of the tournament's stored games: what a resumed run skips."""
        rows = self.db.execute("SELECT id FROM games WHERE tournament = ?", [tournament_id]).fetchall()
        return {r[0] for r in rows}

    def games(
        self, tournament: str | None = None, bot: str | None = None, limit: int | None = None, *,
        bots: Sequence[str] = (), game: str | None = None, round: int | None = None, faults: bool = False,
    ) -> list[GameSummary]:
        """Game summaries, newest first; ``limit`` keeps the most recent ones; the filters combine."""
        at_table = sorted({*bots, *([bot] if bot is not None else [])})
        rows = self._all(
            f"SELECT {self._SUMMARY_COLUMNS} FROM games g"
            " WHERE (:t IS NULL OR g.tournament = :t) AND (:g IS NULL OR g.game = :g)"
            " AND (:r IS NULL OR g.round = :r)"
            " AND (:f = 0 OR EXISTS (SELECT 1 FROM faults f WHERE f.game_id = g.id))"
            # every bot asked for sits at the table: as many of them among its seats as were asked
            " AND (SELECT count(DISTINCT r.bot) FROM results r WHERE r.game_id = g.id"
            "      AND r.bot IN (SELECT value FROM json_each(:b))) = json_array_length(:b)"
            " ORDER BY g.seq DESC LIMIT :limit",
            {"t": tournament, "g": game, "r": round, "f": int(faults), "b": orjson.dumps(at_table).decode(),
             "limit": -1 if limit is None else limit},
        )
        return self._summaries(rows)

    _SUMMARY_COLUMNS = (
        "g.id, g.seq, g.tournament, g.game, g.winner, g.capped, g.finished, g.round, g.table_no, g.variants,"
        " (SELECT count(*) FROM faults f WHERE f.game_id = g.id) AS faults"
    )

    def game_page(self, *, tournament: str | None = None, bot: str | None = None, game: str | None = None,
                  before: int | None = None, limit: int = 50, also: Sequence[str] = (), round: int | None = None,
                  faults: bool = False) -> list[GameSummary]:
        """A page of summaries with ``seq < before``, newest first: a walk down an index on
        ``seq`` (of one tournament or one game: schema step 8) that stops after ``limit``
        matches, however deep the page.

        Only the filters asked for go into the query, so that SQLite sees the range (an ``x IS
        NULL OR`` condition would hide it from the planner).  A bot plays one game, so its games
        are walked among that game's, each checked by the results' key (game_id, seat): the
        unary + keeps SQLite from reading the bot's every result through ``results_bot`` for
        each game instead."""
        where = [sql for sql, value in (
            ("g.tournament = :t", tournament), ("g.game = :g", game), ("g.seq < :before", before),
            ("g.game = (SELECT game FROM bots WHERE name = :b)", bot if game is None and tournament is None else None),
            ("EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.id AND +r.bot = :b)", bot),
            ("g.round = :r", round),
            ("EXISTS (SELECT 1 FROM faults f WHERE f.game_id = g.id)", True if faults else None),
        ) if value is not None]
        params: dict[str, Any] = {"t": tournament, "b": bot, "g": game, "before": before, "limit": limit, "r": round}
        for i, other in enumerate(also):
            where.append(f"EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.id AND +r.bot = :b{i})")
            params[f"b{i}"] = other
        rows = self._all(
            f"SELECT {self._SUMMARY_COLUMNS} FROM games g" + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY g.seq DESC LIMIT :limit",
            params,
        )
        return self._summaries(rows)

    def _summaries(self, rows: list[dict[str, Any]]) -> list[GameSummary]:
        """Summaries of the games rows (of :data:`_SUMMARY_COLUMNS`), with their seats."""
        seats: dict[str, list[tuple[str, int, bool, list[bool]]]] = {r["id"]: [] for r in rows}
        if rows:
            for r in self._all(
                "SELECT r.game_id, r.seat, r.bot, r.place, r.forfeited,"
                " (SELECT json_group_array(f.collateral) FROM faults f"
                "  WHERE f.game_id = r.game_id AND f.seat = r.seat) AS collateral"
                " FROM results r WHERE r.game_id IN (SELECT value FROM json_each(?))"
                " ORDER BY r.game_id, r.seat",
                [orjson.dumps(list(seats)).decode()],
            ):
                seats[r["game_id"]].append((r["bot"], r["place"], bool(r["forfeited"]),
                                            [bool(c) for c in orjson.loads(r["collateral"])]))
        return [
            GameSummary(
                id=r["id"], tournament=r["tournament"], game=r["game"],
                bots=[seat[0] for seat in seats[r["id"]]], places=[seat[1] for seat in seats[r["id"]]],
                winner=r["winner"], capped=bool(r["capped"]), faults=r["faults"], finished=r["finished"],
                forfeited=[seat[2] for seat in seats[r["id"]]], collateral=[seat[3] for seat in seats[r["id"]]],
                seq=r["seq"], round=r["round"], table_no=r["table_no"], variants=orjson.loads(r["variants"]),
            )
            for r in rows
        ]

    def game_record(self, game_id: str) -> dict[str, Any]:
        """The full game record, exactly as it was added."""
        row = self.db.execute("SELECT record FROM games WHERE id = ?", [game_id]).fetchone()
        if row is None:
            raise StorageError(f"no game {game_id}; see `arena games`")
        return decode_record(row[0])

    def faults(self, game_id: str) -> list[FaultRecord]:
        """A game's faults in the order they were reported."""
        return [
            FaultRecord(seat=r["seat"], kind=r["kind"], message=r["message"], decision=r["decision"], bot=r["bot"],
                     collateral=bool(r["collateral"]))
            for r in self._all("SELECT * FROM faults WHERE game_id = ? ORDER BY id", [game_id])
        ]

    def tournament_faults(self, tournament: str) -> Iterator[tuple[str, FaultRecord]]:
        """Every fault of a tournament's games, with its game's id, in the order reported."""
        for r in self.db.execute(
            "SELECT f.game_id, f.seat, f.kind, f.message, f.decision, f.bot, f.collateral FROM faults f"
            " JOIN games g ON g.id = f.game_id WHERE g.tournament = ? ORDER BY f.id", [tournament]
        ):
            yield r[0], FaultRecord(seat=r[1], kind=r[2], message=r[3], decision=r[4], bot=r[5], collateral=bool(r[6]))

    def bot_faults(self, name: str, limit: int) -> tuple[int, list[tuple[str, FaultRecord]]]:
        """The bot's fault count and its newest ``limit`` faults (faults are few: a scan)."""
        total = self.db.execute("SELECT count(*) FROM faults WHERE bot = ?", [name]).fetchone()[0]
        rows = self.db.execute(
            "SELECT game_id, seat, kind, message, decision, bot, collateral FROM faults WHERE bot = ?"
            " ORDER BY id DESC LIMIT ?", [name, limit]).fetchall()
        return total, [(r[0], FaultRecord(seat=r[1], kind=r[2], message=r[3], decision=r[4], bot=r[5],
                                          collateral=bool(r[6]))) for r in rows]

    def logs(self, game_id: str) -> dict[int, str]:
        """Each seat's stderr log of one game."""
        rows = self.db.execute("SELECT seat, stderr FROM logs WHERE game_id = ? ORDER BY seat", [game_id])
        return dict(rows.fetchall())

    def iter_results(self, tournament: str | None = None, game: str | None = None) -> Iterator[ResultRow]:
        """:meth:`results` as a stream, so rating a long tournament needs no list of every row.

        The order is a function of the stored games alone, never of when they were committed
        (worker count, timing, an interrupted and resumed run), so the same results always give
        the same ratings:

        * tournament by tournament, in order of creation (``created``, then id for the same
          instant), and then the games of no tournament;
        * within a tournament, the scheduler's order
          (:data:`~arena.storage.schema.RATING_ORDER_SQL`): round, table, match (seat rotation),
          game number within the match, then game id.

        Rows of one game come together, seat by seat.  One query per tournament, each streamed
        in pages from an index that needs no sort.
        """
        if tournament is not None:
            pools: list[str | None] = [tournament]
        else:  # a few rows: the tournaments, not their games
            pools = [r[0] for r in self.db.execute("SELECT id FROM tournaments ORDER BY created, id")]
            pools.append(None)
        for pool in pools:
            cursor = self.db.execute(schema.RATING_ORDER_SQL, {"t": pool, "g": game})
            while rows := cursor.fetchmany(512):
                for row in rows:
                    yield ResultRow(*row[:9], bool(row[9]), *row[10:])

    def fault_counts(self, tournament: str | None = None, game: str | None = None) -> dict[str, dict[str, int]]:
        """Faults per bot and kind, e.g. ``{"slowbot": {"timeout": 3}}``."""
        rows = self.db.execute(
            "SELECT f.bot, f.kind, count(*) FROM faults f JOIN games g ON g.id = f.game_id"
            " WHERE (:t IS NULL OR g.tournament = :t) AND (:g IS NULL OR g.game = :g)"
            " GROUP BY f.bot, f.kind ORDER BY f.bot, f.kind",
            {"t": tournament, "g": game},
        ).fetchall()
        counts: dict[str, dict[str, int]] = {}
        for bot, kind, n in rows:
            counts.setdefault(bot, {})[kind] = n
        return counts

    # --- ratings --------------------------------------------------------------------------

    def save_ratings(self, tournament_id: str, history: Iterable[RatingPointLike]) -> None:
        """Replace the stored rating history of one tournament (or any label of a pool of games)."""
        rows = ((tournament_id, p.seq, p.bot, p.game_id, float(p.mu), float(p.sigma)) for p in history)  # streamed
        try:
            with self._write():
                self.db.execute("DELETE FROM ratings WHERE tournament_id = ?", [tournament_id])
                self.db.conn.executemany(
                    "INSERT INTO ratings (tournament_id, seq, bot, game_id, mu, sigma) VALUES (?, ?, ?, ?, ?, ?)",
                    rows,
                )
        except sqlite3.IntegrityError as e:
            raise StorageError(f"ratings of {tournament_id!r} were not saved ({e}); recompute them") from e

    # --- stored views ---------------------------------------------------------------------

    def save_view(self, key: str, stamp: Sequence[int], value: dict[str, Any]) -> None:
        """Keep ``value`` (plain JSON values) as the view ``key``, made from the games ``stamp`` says."""
        try:
            with self._write():
                self.db.execute(
                    "INSERT OR REPLACE INTO stored_views (key, stamp, value, made) VALUES (?, ?, ?, ?)",
                    [key, orjson.dumps(list(stamp)).decode(), zlib.compress(_view_json(value)), _now()])
        except sqlite3.IntegrityError as e:
            raise StorageError(f"view {key!r} was not saved ({e}); recompute it") from e

    def stored_view(self, key: str) -> StoredView | None:
        """The view last saved under ``key`` (None: none, or a file from before schema step 10
        read where it could not be upgraded)."""
        try:
            row = self.db.execute("SELECT stamp, value, made FROM stored_views WHERE key = ?", [key]).fetchone()
        except sqlite3.OperationalError as e:
            if "no such table" in str(e):
                return None
            raise
        if row is None:
            return None
        text = zlib.decompress(row[1])
        try:
            value = orjson.loads(text)  # a tenth of the json module's time for a large view
        except orjson.JSONDecodeError:  # an infinite bound, which orjson does not read
            value = json.loads(text)
        return StoredView(key, tuple(orjson.loads(row[0])), value, row[2])

    def scope_size(self, *, tournament: str | None = None, game: str | None = None) -> tuple[int, int]:
        """(games, newest commit number) of a tournament's or a game's games (both None: all),
        counted down the index of step 9 without reading a row, and only past the games this
        process counted before (:meth:`_counted`: 50,000 took 12 ms, and a page asks up to
        three times)."""
        where = [sql for sql, value in (("tournament = :t", tournament), ("game = :g", game)) if value is not None]

        def count(since: int) -> tuple[int, int]:
            row = self.db.execute(
                "SELECT count(*), coalesce(max(seq), 0) FROM games WHERE " + " AND ".join([*where, "seq > :since"]),
                {"t": tournament, "g": game, "since": since}).fetchone()
            return int(row[0]), int(row[1])

        def add(old: tuple[int, int], new: tuple[int, int]) -> tuple[int, int]:
            return old[0] + new[0], new[1] or old[1]  # no game of the scope since: its newest as it was

        return self._counted(("scope", tournament, game), count, add)

    def _counted(self, key: tuple[Any, ...], count: Callable[[int], T], add: Callable[[T, T], T]) -> T:
        """A count of games, kept per file and process: what ``count(since)`` gives for the
        games numbered past ``since``, added to what it gave here before for ``key`` of the
        games up to ``since``.  Exact because games are only ever added, each numbered past the
        newest (and never deleted: a trigger refuses it); so the whole count is made once, then
        only over the games committed since."""
        with self.snapshot():
            row = self.db.execute("SELECT seq, id FROM games ORDER BY seq DESC LIMIT 1").fetchone()
            newest, newest_id = (int(row[0]), row[1]) if row is not None else (0, None)
            known = _COUNTED.get(self._identity, {}).get(key) if self._identity is not None else None
            if known is not None:
                if (known.newest, known.newest_id) == (newest, newest_id):
                    return known.value  # no game stored since
                # The same game still at the newest number counted: the same database, not one
                # written over this file (a new file may get the old one's inode), and not a
                # snapshot older than that count.
                at = self.db.execute("SELECT id FROM games WHERE seq = ?", [known.newest]).fetchone()
                if at is None or at[0] != known.newest_id:
                    known = None
            value = count(known.newest if known is not None else 0)
            if known is not None:
                value = add(known.value, value)
            if self._identity is not None and newest_id is not None:
                _COUNTED.setdefault(self._identity, {})[key] = _Counted(value, newest, newest_id)
            return value

    def bot_rating_history(self, tournament_id: str, bot: str, most: int | None = None) -> list[RatingPoint]:
        """One bot's points, in order, read from the index of step 10.  Thinned by game number
        (the chart's x axis): for each of ``most`` game numbers evenly spaced from its first
        point's to its last, its first point at or after it; one seek each, so a bot of 30,000
        games makes 600 points without reading the rest (numbering all 30,000 rows to pick 600
        took 110 ms at 100,000 games)."""
        where = "FROM ratings WHERE tournament_id = :t AND bot = :b"
        args: dict[str, Any] = {"t": tournament_id, "b": bot}
        if most is None or self.db.execute(f"SELECT count(*) FROM (SELECT 1 {where} LIMIT :over)",
                                           {**args, "over": most + 1}).fetchone()[0] <= most:
            rows = self.db.execute(f"SELECT seq, game_id, bot, mu, sigma {where} ORDER BY seq", args).fetchall()
        else:
            first, last = self.db.execute(f"SELECT min(seq), max(seq) {where}", args).fetchone()
            spaces = max(most, 2) - 1
            args["at"] = orjson.dumps([first + i * (last - first) // spaces for i in range(spaces + 1)]).decode()
            rows = self.db.execute(  # CROSS JOIN: the game numbers first, each one seek
                "SELECT DISTINCT r.seq, r.game_id, r.bot, r.mu, r.sigma FROM json_each(:at) AS x CROSS JOIN ratings r"
                " ON r.tournament_id = :t AND r.bot = :b AND r.seq = (SELECT seq FROM ratings"
                "  WHERE tournament_id = :t AND bot = :b AND seq >= x.value ORDER BY seq LIMIT 1)"
                " ORDER BY r.seq", args).fetchall()
        return [RatingPoint(*row) for row in rows]

    def rating_history(self, tournament_id: str) -> list[RatingPoint]:
        """The history last saved by :meth:`save_ratings`, game by game."""
        rows = self.db.execute(
            "SELECT seq, game_id, bot, mu, sigma FROM ratings WHERE tournament_id = ? ORDER BY seq, bot",
            [tournament_id],
        ).fetchall()
        return [RatingPoint(*row) for row in rows]
