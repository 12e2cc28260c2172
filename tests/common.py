"""What many test files share: where things are, how bots are named and found, which sandbox
this machine has.  (Fixtures are in conftest.py; this module is imported by name.)"""

from __future__ import annotations

import abc
import contextlib
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arena.bots.spec import BotSpec
from arena.sandbox import sandbox_available
from arena.storage import Store, open_store, schema
from arena.storage.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parent.parent
BOT_DIR = ROOT / "bots"
ZOO = ROOT / "tests" / "bots"
RANDOM_PATH = BOT_DIR / "random_bot.py"
RANDOM = str(RANDOM_PATH)
PY = os.path.realpath(sys.executable)  # the real interpreter: a shim under /root is refused to bot uids

# How long a test waits for something that must happen (a game stored, a process gone, a line
# printed): far longer than it takes on a machine ten times slower or busier than this one, so
# only a real fault runs it out (issue 16: waits of 3-60 s failed correct code at load 14-20);
# a wait that succeeds ends as soon as its condition holds, so a quiet machine pays nothing.
PATIENCE_S = 180.0

T = TypeVar("T")


def wait_until(condition: Callable[[], T], what: str, timeout: float = PATIENCE_S, every: float = 0.02) -> T:
    """Poll ``condition`` until it returns something true, and return that; fail saying ``what``
    was awaited if it has not after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}")
        time.sleep(every)
    return value


HAS_BWRAP = sandbox_available()
MODE = "strict" if HAS_BWRAP else "none"  # the strongest sandbox this machine offers
needs_bwrap = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap (bwrap) is not usable here")


def zoo(name: str, *args: str) -> BotSpec:
    """A misbehaving test bot from tests/bots (``zoo_NAME.py``), run with ``args`` after its endpoint."""
    path = str(ZOO / f"zoo_{name}.py")
    return BotSpec(name, (PY, path, "{endpoint}", *args), (path,))


def tagged(spec: BotSpec, tag: str) -> BotSpec:
    """The same bot with a marker at the end of its command line, to find its processes."""
    command = spec.command if "{endpoint}" in spec.command else (*spec.command, "{endpoint}")
    return BotSpec(spec.name, (*command, tag), spec.expose)


def bot_processes(tag: str) -> list[str]:
    """Command lines of every live process of one test's bots (their command lines carry ``tag``)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue  # a zombie is dead; only its parent's reaping is pending
        except OSError:
            continue
        if tag in cmd:
            found.append(f"{pid}: {cmd}")
    return found


STORED_TABLES = ("bots", "bot_versions", "tournaments", "games", "results", "faults", "logs", "ratings")


def as_released(source: Path, target: Path, steps: int) -> None:
    """Make ``target`` a database of the first ``steps`` schema steps only, holding what
    ``source`` holds in the columns those steps made: what an arena of that release had stored.
    Opening it with this code then upgrades it, as a user's old database is upgraded."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(schema, "STEPS", schema.STEPS[:steps])
        open_store(target).close()
    with contextlib.closing(sqlite3.connect(target)) as conn:
        conn.execute("ATTACH DATABASE ? AS source", [str(source)])
        for table in STORED_TABLES:
            columns = ", ".join(row[1] for row in conn.execute(f"PRAGMA main.table_info({table})"))
            conn.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM source.{table} ORDER BY rowid")
        conn.commit()


class InterfaceOnly(Store):
    """A storage backend with the :class:`Store` interface and nothing else, for the scheme
    ``interface://PATH``: each method hands on to a SQLite store at PATH, which stays out of
    reach, so a caller that used anything of the SQLite store beyond the interface (``.db``,
    ``.path``) fails.  Register it with ``monkeypatch.setitem(BACKENDS, "interface", InterfaceOnly)``."""

    PREFIX = "interface://"

    def __init__(self, inner: SqliteStore) -> None:
        self._inner = inner

    @classmethod
    def open(cls, location: str, *, create: bool, readonly: bool) -> "InterfaceOnly":
        return cls(SqliteStore.open(location.removeprefix(cls.PREFIX), create=create, readonly=readonly))

    @classmethod
    def exists(cls, location: str) -> bool:
        return SqliteStore.exists(location.removeprefix(cls.PREFIX))


def _handed_on(name: str) -> Any:
    def method(self: InterfaceOnly, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._inner, name)(*args, **kwargs)

    method.__name__ = name
    return method


for _name in InterfaceOnly.__abstractmethods__:
    setattr(InterfaceOnly, _name, _handed_on(_name))
abc.update_abstractmethods(InterfaceOnly)
