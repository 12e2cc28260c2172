"""What the web tests share: a database made by real tournaments of the bundled bots, a real
``arena serve`` on a real port, and the browser (Debian's chromium driven by Playwright).

Imported by name (like ``common``); the fixtures that use these are in the test files."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any
from pathlib import Path

from arena.web.serving import free_port
from common import BOT_DIR, MODE

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
BROWSER_HOWTO = ("the browser tests need Debian's chromium and Playwright for Python: apt-get install chromium; "
                 "pip install -e '.[test]' (CI's .ci/run installs both)")

REACTOR = "web-reactor"
KEG = "web-keg"


def browser_missing() -> str | None:
    """Why the browser tests can not run here (None: they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return BROWSER_HOWTO
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        return BROWSER_HOWTO
    return None


def tournament_file(folder: Path, name: str, game: str, bots: dict[str, str], *, games: int = 1,
                    points: int | None = None, extra: str = "") -> Path:
    """A round-robin of the bundled bots at tables of three, every seat rotation."""
    lines = [f'name = "{name}"', f'game = "{game}"', 'format = "round-robin"', "seats = 3", f"games = {games}",
             "rotations = true", "seed = 7"]
    if points is not None:
        lines.append(f"points = {points}")
    lines += ["", "[sandbox]", f'mode = "{MODE}"', "", "[time]", "decision = 5000", "game = 60000",
              "startup = 20000"]
    for bot, path in bots.items():
        lines += ["", "[[bots]]", f'name = "{bot}"', f'path = "{path}"']
    lines.append(extra)
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def arena(*args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess[str]:
    """The real ``arena`` command, in a process of its own."""
    done = subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done


def build_db(folder: Path) -> Path:
    """A database of two real tournaments: Reactor (random, heuristic, strong) and Powder Keg
    (the same three, matches to two points), three tables each."""
    db = folder / "arena.db"
    reactor = tournament_file(folder, REACTOR, "reactor", {
        "random": str(BOT_DIR / "random_bot.py"), "reactor-heuristic": str(BOT_DIR / "reactor_heuristic.py"),
        "reactor-strong": str(BOT_DIR / "reactor_strong.py")}, games=2)
    keg = tournament_file(folder, KEG, "powder-keg", {
        "keg-random": str(BOT_DIR / "random_bot.py"), "keg-heuristic": str(BOT_DIR / "keg_heuristic.py"),
        "keg-strong": str(BOT_DIR / "keg_strong.py")}, points=2)
    arena("run", str(reactor), "--db", str(db))
    arena("run", str(keg), "--db", str(db))
    return db


def shared_db(tmp_path_factory: Any, name: str) -> Path:
    """A copy, in a new folder ``name``, of the database :func:`build_db` makes, made once per
    test run in a folder all of pytest-xdist's workers see (this run's, never an earlier run's):
    each web test module built its own in every worker that ran one of its tests, up to eight
    builds of two tournaments beside each other, which on a busy machine took a minute each."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "web-db"
    folder = tmp_path_factory.mktemp(name)
    shared.mkdir(parents=True, exist_ok=True)
    with open(shared / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds; the others wait and copy
        done = shared / "built"
        if not done.exists():
            build_db(shared)
            done.touch()
        db = folder / "arena.db"
        with contextlib.closing(sqlite3.connect(shared / "arena.db")) as source, \
                contextlib.closing(sqlite3.connect(db)) as target:
            source.backup(target)  # every page of it, WAL included: a file of its own to change
    return db


def get(url: str, method: str = "GET") -> tuple[int, str]:
    """Status and body of one request (an error status is returned, not raised)."""
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@contextlib.contextmanager
def served(db: Path, *extra: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``arena serve --db DB`` on a free port, until the block ends; yields its base URL."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--db", str(db), "--port", str(port),
                               *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise AssertionError(f"arena serve ended: {server.stderr.read() if server.stderr else ''}")
            try:
                if get(base + "/")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("arena serve did not answer within 60 s")
            time.sleep(0.1)
        yield base, server
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
