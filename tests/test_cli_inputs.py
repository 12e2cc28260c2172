"""Bad command-line inputs (issue 15): each is one line on stderr and status 2, through the real
entry point, and loses nothing and leaves nothing behind (no database where there was none, a
file that is not arena's unchanged); a run stopped by Ctrl-C or SIGTERM leaves no socket folder."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.execution import local
from arena.referee.workroot import WORKROOT_PREFIX
from arena.storage import open_store

from common import PATIENCE_S, RANDOM, ROOT


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real entry point, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)


def tournament(tmp_path: Path, name: str = "t", extra: str = "", bots: int = 2, seats: int = 2) -> Path:
    """A small tournament file of random bots without a sandbox."""
    spec = tmp_path / f"{name}.toml"
    spec.write_text(f'name = "{name}"\ngame = "reactor"\nseats = {seats}\nseed = 1\n{extra}\n[sandbox]\nmode = "none"\n'
                    + "".join(f'[[bots]]\nname = "{name}{i}"\npath = "{RANDOM}"\n' for i in range(bots)))
    return spec


def foreign(tmp_path: Path) -> Path:
    """Someone else's SQLite file: tables, and no arena schema."""
    path = tmp_path / "someone-elses.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT)")
        conn.execute("INSERT INTO accounts (owner) VALUES ('them')")
    conn.close()
    return path


def deep_toml(tmp_path: Path) -> Path:
    path = tmp_path / "deep.toml"
    path.write_text("bots = " + "[" * 5000 + "]" * 5000 + "\n")
    return path


def nul_path_toml(tmp_path: Path) -> Path:
    path = tmp_path / "nul.toml"
    path.write_text('name = "t"\ngame = "reactor"\n[[bots]]\nname = "a"\npath = "x\\u0000y"\n'
                    f'[[bots]]\nname = "b"\npath = "{RANDOM}"\n')
    return path


def corrupt_xz(tmp_path: Path) -> Path:
    """A bot archive (.tar, which may be compressed) of xz whose stream breaks inside its first
    file: the tar header reads, the data does not."""
    import io
    import lzma
    import random
    import tarfile

    raw = io.BytesIO()
    data = random.Random(1).randbytes(100_000)  # incompressible: the break lands inside the file
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo("bot.toml")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    whole = lzma.compress(raw.getvalue())
    path = tmp_path / "bot.tar"
    path.write_bytes(whole[:2000] + bytes(b ^ 0x55 for b in whole[2000:2050]) + whole[2050:])
    return path


def not_a_tar(tmp_path: Path) -> Path:
    path = tmp_path / "bot.tar"
    path.write_bytes(b"\xfd7zXZ\x00" + b"\x00" * 600)
    return path


HUGE = "99999999999999999999999"
Case = Callable[[Path], list[str]]
# Each case: the arguments, made in a fresh folder whose db.sqlite does not exist, and words the
# error must hold.
CASES: dict[str, tuple[Case, str]] = {
    "run-foreign-db": (lambda d: ["run", str(tournament(d)), "--db", str(foreign(d))], "not an arena database"),
    "bots-add-foreign-db": (lambda d: ["bots", "add", RANDOM, "--name", "r", "--game", "reactor", "--sandbox", "none",
                                       "--db", str(foreign(d))], "not an arena database"),
    "run-workers-huge": (lambda d: ["run", str(tournament(d)), "--db", str(d / "db.sqlite"), "--workers", HUGE],
                         "--workers"),
    "run-workers-257": (lambda d: ["run", str(tournament(d)), "--db", str(d / "db.sqlite"), "--workers", "257"],
                        "--workers"),
    "run-workers-0": (lambda d: ["run", str(tournament(d)), "--db", str(d / "db.sqlite"), "--workers", "0"],
                      "--workers"),
    "run-max-games-huge": (lambda d: ["run", str(tournament(d)), "--db", str(d / "db.sqlite"), "--stop", "settled",
                                      "--max-games", "20000000"], "--max-games must be from 1 to 10,000,000"),
    "run-deep-toml": (lambda d: ["run", str(deep_toml(d)), "--db", str(d / "db.sqlite")], "deep.toml"),
    "run-nul-in-bot-path": (lambda d: ["run", str(nul_path_toml(d)), "--db", str(d / "db.sqlite")], "bots[0].path"),
    "run-folder-as-file": (lambda d: ["run", str(d), "--db", str(d / "db.sqlite")], "is a folder"),
    "run-missing-file": (lambda d: ["run", str(d / "missing.toml"), "--db", str(d / "db.sqlite")], "no tournament file"),
    "run-empty-db": (lambda d: ["run", str(tournament(d)), "--db", ""], "empty"),
    "run-folder-as-db": (lambda d: ["run", str(tournament(d)), "--db", str(d)], "is a directory"),
    "games-limit-huge": (lambda d: ["games", "--limit", HUGE, "--db", str(d / "db.sqlite")], "--limit"),
    "games-round-huge": (lambda d: ["games", "--round", HUGE, "--db", str(d / "db.sqlite")], "--round"),
    "games-limit-negative": (lambda d: ["games", "--limit", "-1", "--db", str(d / "db.sqlite")], "--limit"),
    "games-unknown-game": (lambda d: ["games", "--game", "chess", "--db", str(d / "db.sqlite")], "unknown game"),
    "selfplay-matches-huge": (lambda d: ["selfplay", "reactor", "--matches", HUGE, "--out", str(d / "o.jsonl")],
                              "--matches"),
    "selfplay-points-huge": (lambda d: ["selfplay", "powder-keg", "--points", HUGE, "--out", str(d / "o.jsonl")],
                             "--points"),
    "selfplay-unknown-variant": (lambda d: ["selfplay", "powder-keg", "--variant", "", "--out", str(d / "o.jsonl")],
                                 "variant"),
    "selfplay-unknown-game": (lambda d: ["selfplay", "chess", "--out", str(d / "o.jsonl")], "unknown game"),
    "play-matches-huge": (lambda d: ["play", "reactor", RANDOM, RANDOM, "--matches", HUGE], "--matches"),
    "play-empty-bot": (lambda d: ["play", "reactor", "", RANDOM, "--sandbox", "none"], "no bot"),
    "check-players-0": (lambda d: ["check", RANDOM, "--game", "reactor", "--players", "0", "--sandbox", "none"],
                        "players"),
    "bots-add-folder": (lambda d: ["bots", "add", str(d), "--name", "r", "--game", "reactor",
                                   "--db", str(d / "db.sqlite")], "needs a bot.toml"),  # a folder is a bot with a manifest
    # Found in review: an unclosed quote in a bot's command line, and a corrupt xz archive, were tracebacks.
    "check-unclosed-quote": (lambda d: ["check", "python3 'x", "--game", "reactor", "--sandbox", "none"],
                             "No closing quotation"),
    "play-unclosed-quote": (lambda d: ["play", "reactor", "python3 'x", "python3 'y", "--sandbox", "none"],
                            "No closing quotation"),
    "bots-add-corrupt-xz": (lambda d: ["bots", "add", str(corrupt_xz(d)), "--name", "r", "--game", "reactor",
                                       "--db", str(d / "db.sqlite")], "not a readable archive (Corrupt input data)"),
    # tarfile's error for a file no method opens spans five lines: the error is still one.
    "bots-add-not-an-archive": (lambda d: ["bots", "add", str(not_a_tar(d)), "--name", "r", "--game", "reactor",
                                           "--db", str(d / "db.sqlite")], "not a readable archive"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_input_is_one_line_and_status_2_and_leaves_nothing(tmp_path: Path, case: str) -> None:
    make, words = CASES[case]
    args = make(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    done = arena(*args)
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert words in lines[0], lines[0]
    after = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    assert after == before  # no database (nor its -wal, -shm or lock files) made, nothing changed
    assert not (tmp_path / ".arena-bots").exists()


def test_a_new_or_empty_file_still_becomes_an_arena_database(tmp_path: Path) -> None:
    """Only a file with someone else's tables is refused: an empty one (`touch arena.db`) is fine."""
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for path in (empty, tmp_path / "new.db"):
        with open_store(str(path)) as store:
            assert store.tournaments() == []


class _Counted(local._Worker):
    made = 0

    def __init__(self, *args: object, **kwargs: object) -> None:
        type(self).made += 1
        super().__init__(*args, **kwargs)


def test_a_pool_forks_no_more_workers_than_it_has_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--workers 40 for a tournament of two matches forked 40 workers."""
    monkeypatch.setattr(local, "_Worker", _Counted)
    spec = tournament(tmp_path, "few")  # 2 bots, 2 seats: two games
    done = CliRunner().invoke(app, ["run", str(spec), "--db", str(tmp_path / "a.db"), "--workers", "40", "--quiet"])
    assert done.exit_code == 0, done.output
    assert "2 games played now" in done.output
    assert 1 <= _Counted.made <= 2


def _terminal_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a coordinator's workers)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, "frozen"], ids=["ctrl-c", "sigterm", "frozen-workers"])
def test_a_stopped_run_leaves_no_socket_folder(tmp_path: Path, sig: signal.Signals | str) -> None:
    """Ctrl-C (to the process group) or SIGTERM (to the coordinator) during `arena run --workers 2`:
    no `arena-ref-*` folder of that run is left in its temporary folder (its own, so that other
    runs on the machine do not count).  ``frozen``: SIGTERM while the workers are stopped
    (SIGSTOP), so that they cannot clean up and are killed after 5 s: their folders were left."""
    temp = Path(tempfile.mkdtemp(prefix="arq-", dir="/tmp"))  # short: a socket path holds 107 bytes
    proc = None
    try:
        spec = tournament(tmp_path, "stop", extra="games = 20", bots=3, seats=3)
        db = tmp_path / "a.db"
        command = [sys.executable, "-m", "arena.cli", "run", str(spec), "--db", str(db), "--quiet", "--workers", "2"]
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, TMPDIR=str(temp)), start_new_session=True,
                                preexec_fn=_terminal_sigint)
        stored, made, deadline = 0, False, time.monotonic() + PATIENCE_S
        while not (stored >= 3 and made) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            made = made or bool(list(temp.glob(f"{WORKROOT_PREFIX}*")))  # the run's referees make them here
            try:
                with sqlite3.connect(db) as conn:
                    stored = conn.execute("SELECT count(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                pass
        assert stored >= 3 and made and proc.poll() is None, proc
        if sig == "frozen":
            for worker in _children(proc.pid):
                os.kill(worker, signal.SIGSTOP)
            sig = signal.SIGTERM
            proc.send_signal(sig)
        elif sig == signal.SIGINT:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=PATIENCE_S)
        assert proc.returncode == 128 + sig, err
        assert "Traceback" not in err, err
        assert not list(temp.glob(f"{WORKROOT_PREFIX}*"))
        assert not list(temp.glob("arena-stop*"))  # nor the bots' working folders
    finally:
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        subprocess.run(["rm", "-rf", str(temp)], check=False)
