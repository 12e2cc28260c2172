"""Issue 15's attacks on the sandbox, each by a hostile bot in the real sandbox: the attack fails,
the referee (here: the test process) is untouched, and no process or folder of the bot is left.

* colluding bots: two copies of one bot look for a channel between them (file locks on shared
  files, shared memory, sockets, signals, /proc, ...): none gets through;
* a bot that dies with its referee, however the referee is killed (``kill -9`` just as bots start);
* a bot that fills its tmpfs with empty files; one that reads /proc for host paths; one that
  moves itself to another CPU.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shlex
import socket
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from arena import sandbox
from arena.sandbox import procs
from arena.sandbox import uids as sandbox_uids
from arena.referee.workroot import owner_pid, remove_stale_workroots
from arena.sandbox import Resources, SandboxError
from common import MODE, PATIENCE_S, PY, RANDOM, ROOT, bot_processes
from sandboxing import BOTH_MODES, BOTS, needs_bwrap, needs_fallback_uid, start, stop_and_check, wait_for


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def shared_file(tmp_path: Path) -> Path:
    """A file every bot may read (as every sandbox reads /usr/bin/python3), last read long ago:
    reading it would move its access time, were it not read-only to the bots."""
    folder = tmp_path / "shared"
    folder.mkdir()
    path = folder / "book.txt"
    path.write_text("an opening book both bots ship with\n")
    day = 24 * 3600
    os.utime(path, (time.time() - 3 * day, time.time() - 2 * day))  # atime before mtime: relatime updates
    for p in (tmp_path, folder):
        p.chmod(0o755)
    path.chmod(0o644)
    return path


def collude(mode: str, tmp_path: Path, shared_file: Path) -> dict[str, str]:
    """The receiver watches every channel before the sender starts; the sender then holds each
    one open and pokes it for 3 s.  The receiver's report: channel -> outcome."""
    port = free_port()
    args = (str(shared_file), "3", str(port))
    receiver = start(tmp_path / "r", mode, "sandbox_collude.py", "receive", *args, expose=[shared_file])
    sender = None
    try:
        wait_for(receiver, "armed")
        sender = start(tmp_path / "s", mode, "sandbox_collude.py", "send", *args, expose=[shared_file])
        wait_for(sender, "sending")
        report = json.loads(wait_for(receiver, "}\n").strip().splitlines()[-1])
        assert len(report) >= 26, report  # every probe ran
        return report
    finally:
        stop_and_check(receiver)
        if sender is not None:
            stop_and_check(sender)


@needs_bwrap
def test_two_bots_find_no_channel_through_the_sandbox(tmp_path: Path, shared_file: Path) -> None:
    """Every channel stays silent or is refused (11 got through before issue 15)."""
    report = collude("strict", tmp_path, shared_file)
    observed = sorted(channel for channel, outcome in report.items() if outcome == "observed")
    assert observed == [], f"channels between the bots: {observed}; all: {report}"


@needs_fallback_uid
def test_without_bwrap_the_private_namespaces_close_what_they_hold(tmp_path: Path, shared_file: Path) -> None:
    """Without bubblewrap a root referee's bots have private IPC, network and temporary folders,
    and uids of their own: those channels stay silent.  What they share without bwrap stays open
    (file locks, notifications and futexes on shared files, /proc, sysinfo, the cgroup tree,
    atime): the README says so."""
    report = collude("none", tmp_path, shared_file)
    closed = ["sysv_shm", "sysv_msg", "posix_mq", "abstract_socket", "tcp_loopback", "signals",
              *(f"file_in {d}" for d in ("/dev/shm", "/tmp", "/var/tmp", "/run/lock"))]
    assert {channel: report[channel] for channel in closed} == dict.fromkeys(closed, "silent")
    # The control: the same probes do see the channels left open here, so a probe that saw
    # nothing anywhere could not pass the sandboxed test above unnoticed.
    open_here = ["flock", "flock_system_file", "ofd_lock", "proc_locks"]
    assert {channel: report[channel] for channel in open_here} == dict.fromkeys(open_here, "observed"), report


@needs_bwrap
def test_a_named_pipe_in_an_exposed_folder_is_refused(tmp_path: Path) -> None:
    """Any number of processes may open a FIFO, on a read-only mount too: one shipped in a bot's
    folder (say, its node_modules) would let every copy of the bot talk to every other."""
    folder = tmp_path / "node_modules" / "left-pad"
    folder.mkdir(parents=True)
    (folder / "index.js").write_text("module.exports = 1\n")
    os.mkfifo(folder / "pipe")
    with pytest.raises(SandboxError, match=r"node_modules/left-pad/pipe is a named pipe"):
        start(tmp_path / "e", "strict", "sandbox_sleeper.py", expose=[tmp_path / "node_modules"])
    os.unlink(folder / "pipe")
    stop_and_check(start(tmp_path / "e", "strict", "sandbox_sleeper.py", expose=[tmp_path / "node_modules"]))


# --- bots die with their referee, even under kill -9 at any moment ----------------------------

# Says each bot uid as soon as it is leased (before the bot starts), so that the test can hold the
# uids of a killed referee's bots: on a busy machine every other referee's session sweeps the
# processes of uids nobody leases, and would hide a bot that outlived its own referee.
SAY_UIDS = textwrap.dedent(
    """
    import sys
    from arena.sandbox import launch
    lease_uid = launch._lease_uid
    def _say(lease_uid=lease_uid):
        lease = lease_uid()
        print("uid", lease.uid, file=sys.stderr, flush=True)
        return lease
    launch._lease_uid = _say
    """
)
REFEREE = SAY_UIDS + textwrap.dedent(
    """
    import time
    from pathlib import Path
    from arena.sandbox import start_bot
    python, script, folder, mode, tag = sys.argv[1:6]
    for i in range(4):
        start_bot([python, script, tag], expose=[Path(script)], endpoint_dir=Path(folder) / str(i), mode=mode,
                  name=f"kill{i}")
    time.sleep(60)
    """
)
ARENA = SAY_UIDS + "from arena.cli import app\nsys.argv[0] = 'arena'\napp()\n"


def kill_as_bots_start(command: list[str], tag: str, delay: float) -> int:
    """Start a referee, kill it with SIGKILL ``delay`` seconds after the first process of its
    bots appears (bwrap, a guard: their command lines carry ``tag``), and return its pid once
    nothing of its bots is left; fail if something still is PATIENCE_S later (a loaded machine
    is slow to end processes; an orphan never ends)."""
    referee = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    held = []

    def of_bots() -> list[str]:  # (the referee's own command line carries the tag too)
        return [line for line in bot_processes(tag) if not line.startswith(f"{referee.pid}:")]

    try:
        deadline = time.monotonic() + PATIENCE_S
        while not of_bots():
            assert referee.poll() is None, "the referee ended before it started a bot"
            assert time.monotonic() < deadline, "the referee started no bot"
            time.sleep(0.002)
        time.sleep(delay)
    finally:
        referee.kill()
        referee.wait()
        assert referee.stderr is not None
        uids = [int(line.split()[1]) for line in referee.stderr.read().decode().splitlines() if line.startswith("uid ")]
        referee.stderr.close()
        if os.geteuid() == 0:
            directory = sandbox_uids._lock_dir()
            held = [lease for uid in uids if (lease := sandbox_uids._try_lease(directory, uid)) is not None]
    try:
        deadline = time.monotonic() + PATIENCE_S
        while left := of_bots() + [f"uid {lease.uid}" for lease in held if procs._live_pids_of_uid(lease.uid)]:
            assert time.monotonic() < deadline, f"outlived the referee killed after {delay:.3f} s by {PATIENCE_S:.0f} s: {left}"
            time.sleep(0.02)
    finally:
        for lease in held:
            lease.release()
    return referee.pid


def assert_nothing_left_of(pid: int) -> None:
    """The sweeps a referee session starts with leave nothing of the dead referee ``pid``: no
    bot working folder, no socket folder (tests running in parallel may have swept first)."""
    remove_stale_workroots()
    sandbox.remove_stale_workdirs()
    temp = Path(tempfile.gettempdir())
    assert not list(temp.glob(f"arena-*-w{pid}-*"))
    assert not [p for p in temp.glob("arena-ref-*") if owner_pid(p) == pid]


def kill_loop(mode: str, tmp_path: Path, rounds: int) -> None:
    rng = random.Random(f"kill:{mode}:{rounds}")
    for n in range(rounds):
        tag = f"tag-{uuid.uuid4().hex}"
        pid = kill_as_bots_start([sys.executable, "-c", REFEREE, PY, str(BOTS / "sandbox_silent.py"),
                                  str(tmp_path / f"r{n}"), mode, tag], tag, rng.uniform(0, 0.25))
        assert_nothing_left_of(pid)


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_bots_die_with_a_referee_killed_as_they_start(mode: str, tmp_path: Path) -> None:
    """A referee killed with kill -9 at random moments while it starts four bots (silent ones:
    a bot that prints dies of SIGPIPE anyway): nothing of them survives it (bwrap and bots lived
    on for up to 60 s in 10 of 15 tries before), and the next session's sweep leaves no folder
    of theirs."""
    kill_loop(mode, tmp_path, rounds=6)


@pytest.mark.perf  # a long loop: many kills at many moments
@pytest.mark.parametrize("mode", BOTH_MODES)
def test_bots_die_with_a_referee_killed_as_they_start_many_times(mode: str, tmp_path: Path) -> None:
    kill_loop(mode, tmp_path, rounds=60)


def kill_real_runs(tmp_path: Path, rounds: int) -> None:
    rng = random.Random(f"play:{rounds}")
    for n in range(rounds):
        tag = f"tag-{uuid.uuid4().hex}"
        bot = shlex.join([PY, str(BOTS / "sandbox_silent.py"), tag])
        command = [sys.executable, "-c", ARENA, "play", "reactor", bot, bot, bot, "--sandbox", MODE]
        pid = kill_as_bots_start(command, tag, rng.uniform(0, 0.3))
        assert_nothing_left_of(pid)


def test_bots_die_with_a_real_run_killed_as_they_start(tmp_path: Path) -> None:
    """The same for ``arena play``, the harness's own referee."""
    kill_real_runs(tmp_path, rounds=3)


def test_bots_die_with_a_tournament_run_killed_as_they_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for ``arena run --workers 2``: kill -9 of the coordinator while its two worker
    processes start their bots.  The workers die with it (a parent-death signal), their bots
    with them.  The run's folder is named only in the bots' command lines (the run works in it,
    by a relative path), so what is watched is the bots."""
    import shutil

    rng = random.Random("run-kill")
    for n in range(3):
        tag = f"tag-{uuid.uuid4().hex}"
        folder = tmp_path / tag
        folder.mkdir()
        shutil.copy(BOTS / "sandbox_silent.py", folder / "silent.py")
        bots = "".join(f'[[bots]]\nname = "s{i}"\npath = "silent.py"\n' for i in range(4))
        (folder / "run.toml").write_text(f'name = "killed"\ngame = "reactor"\nseats = 2\nseed = 1\n'
                                         f'[time]\nstartup = 60000\n[sandbox]\nmode = "{MODE}"\n{bots}')
        monkeypatch.setenv("ARENA_TEST_RUN_DIR", str(folder))
        command = [sys.executable, "-c", "import os; os.chdir(os.environ['ARENA_TEST_RUN_DIR'])\n" + ARENA,
                   "run", "run.toml", "--db", "a.db", "--workers", "2", "--quiet"]
        kill_as_bots_start(command, tag, rng.uniform(0, 0.3))


@pytest.mark.perf
def test_bots_die_with_a_real_run_killed_as_they_start_many_times(tmp_path: Path) -> None:
    kill_real_runs(tmp_path, rounds=30)


def test_a_folder_is_stale_once_its_maker_is_gone_even_if_its_pid_lives_again() -> None:
    """Pids wrap around (32768 here): a live process with the dead maker's pid that started after
    the folder was made is not its maker."""
    me = procs.started_at(os.getpid())
    assert me is not None and abs(me - time.time()) < 24 * 3600
    assert procs.alive_since(os.getpid(), time.time())  # made by this process, now
    assert not procs.alive_since(os.getpid(), me - 60)  # made a minute before this process began
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    assert not procs.alive_since(int(dead.stdout), time.time())


def test_socket_folders_without_an_owner_are_swept_once_old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A referee killed between making its socket folder and writing its pid there left a folder
    no sweep judged, for ever; now one of this user's with no owner, or an empty or garbled
    one, goes once it is 10 minutes old.  A young one, and another user's, stay."""
    import arena.referee.workroot as workroot

    monkeypatch.setattr(workroot, "socket_parent", lambda: str(tmp_path))
    old = time.time() - workroot.UNOWNED_AFTER_S - 60
    folders = {name: tmp_path / f"{workroot.WORKROOT_PREFIX}{name}" for name in
               ("none", "empty", "garbled", "young", "theirs", "reused")}
    for folder in folders.values():
        folder.mkdir()
    (folders["empty"] / workroot.OWNER_FILE).write_text("")
    (folders["garbled"] / workroot.OWNER_FILE).write_text("12ab")
    (folders["young"] / workroot.OWNER_FILE).write_text("")
    for name in ("none", "empty", "garbled", "theirs"):
        os.utime(folders[name], (old, old))
    if os.geteuid() == 0:
        os.chown(folders["theirs"], 65534, 65534)
    # The owner file names this process, as if written an hour before it began (a reused pid).
    (folders["reused"] / workroot.OWNER_FILE).write_text(str(os.getppid()))
    monkeypatch.setattr(workroot, "alive_since", lambda pid, made: False)
    workroot.remove_stale_workroots()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{workroot.WORKROOT_PREFIX}{name}" for name in ("young", *(("theirs",) if os.geteuid() == 0 else ())))


# --- smaller holes ----------------------------------------------------------------------------

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="only a root referee bounds a tmpfs's files")


@needs_root
@pytest.mark.parametrize("mode", BOTH_MODES)
def test_empty_files_stop_at_the_tmpfs_file_bound(mode: str, tmp_path: Path) -> None:
    """/tmp and the working folder each take at most ``tmp_files`` files: ENOSPC after that."""
    bot = start(tmp_path / "e", mode, "sandbox_inodes.py", limits=Resources(tmp_files=2000))
    try:
        err = wait_for(bot, "done", timeout=60)
        for where in (".", "/tmp"):
            line = next(x for x in err.splitlines() if x.startswith(f"{where}: "))
            made = int(line.split("made=")[1])
            assert "errno=28" in line and 1500 < made <= 2000, err  # ENOSPC; a few inodes are the tmpfs's own
    finally:
        stop_and_check(bot)


@needs_bwrap
def test_no_host_path_under_proc(tmp_path: Path) -> None:
    """/proc/self/mountinfo and /proc/1/cmdline (bwrap's command line) named the host's paths of
    the interpreter, the venv, the bot and the registry cache beside the database: the bot has no
    /proc (and listmount/statmount are refused: test_sandbox.py)."""
    paths = ["/proc/self/mountinfo", "/proc/1/cmdline", "/proc/self/cmdline", "/proc/self/environ", "/proc/mounts"]
    bot = start(tmp_path / "e", "strict", "sandbox_readfile.py", *paths)
    try:
        report = json.loads(wait_for(bot, "}\n").strip().splitlines()[-1])
        assert {path: report[path] for path in paths} == dict.fromkeys(paths, "FileNotFoundError")
    finally:
        stop_and_check(bot)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
@pytest.mark.parametrize("mode", BOTH_MODES)
def test_a_bot_cannot_move_to_another_cpu(mode: str, tmp_path: Path) -> None:
    """A referee kept to one CPU (as a worker keeps its table): its bot may not leave it.  Under
    bwrap the seccomp filter refuses (EPERM); without, its cpuset refuses another CPU (EINVAL)
    and keeps a wider mask to its own CPU."""
    cpu = sorted(os.sched_getaffinity(0))[0]
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})  # the bot starts from this thread
    try:
        bot = start(tmp_path / "e", mode, "sandbox_affinity.py")
    finally:
        os.sched_setaffinity(0, before)
    try:
        report = json.loads(wait_for(bot, "}\n").strip().splitlines()[-1])
        assert all(mask == [cpu] for _outcome, mask in report.values()), report
        refused = {"strict": {"EPERM"}, "none": {"EINVAL", "ok"}}[mode]  # ok: and kept to its CPU
        assert {outcome for name, (outcome, _mask) in report.items() if name != str(cpu)} <= refused, report
    finally:
        stop_and_check(bot)


def test_a_tournament_with_sandbox_attackers_loses_no_game(tmp_path: Path) -> None:
    """Two copies of a bot that attacks its sandbox at every start, and two victims, with two
    workers: every game is played and stored without a fault, and when the run ends nothing of
    the bots is left, neither a process (the attackers' daemons) nor a folder."""
    attacker = BOTS / "zoo_sandbox_attacker.py"
    bots = "".join(f'[[bots]]\nname = "{name}"\npath = "{path}"\n'
                   for name, path in (("a1", attacker), ("a2", attacker), ("v1", RANDOM), ("v2", RANDOM)))
    spec = tmp_path / "attack.toml"
    spec.write_text(f'name = "attack"\ngame = "reactor"\nseats = 3\ngames = 1\nseed = 15\n[sandbox]\nmode = "{MODE}"\n'
                    + bots)
    temp = tmp_path / "tmp"  # the run's own temporary folder: what is left in it is the run's
    temp.mkdir()
    done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(spec), "--db", str(tmp_path / "a.db"),
                           "--workers", "2", "--quiet", "--json"],
                          env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    # Read as any SQLite client would: the file format is the stable interface.
    with contextlib.closing(sqlite3.connect(f"file:{tmp_path / 'a.db'}?mode=ro", uri=True)) as db:
        games = [row[0] for row in db.execute("SELECT id FROM games WHERE tournament = 'attack'")]
        faults = db.execute("SELECT count(*) FROM faults WHERE game_id IN "
                            "(SELECT id FROM games WHERE tournament = 'attack')").fetchone()[0]
        logs = "".join(row[0] for row in db.execute("SELECT stderr FROM logs"))
    assert len(games) == 4 * 3 and faults == 0  # 4 tables of 3, each in 3 seat rotations
    # The attacks ran, and failed where the sandbox refuses them (bwrap: the daemon may start).
    assert "zoo_sandbox_attacker: daemon ok" in logs and "zoo_sandbox_attacker: flock ok" not in logs
    assert bot_processes(str(attacker)) == [], "an attacker's daemon outlived the run"
    assert [p.name for p in temp.iterdir()] == []
