"""The bot sandbox, against real processes: deliberately hostile bots must be contained.

Each bot in tests/bots/sandbox_*.py misbehaves in one way.  Tests marked for bwrap run in
strict mode; tests of the fallback use mode="none" and, as root, the system Python (the venv's
interpreter lives under /root, which other uids cannot enter), so they still get a uid of their
own; tests of a bot without a uid (as if it sat under /root) say that no uid can reach it.
Every test checks that after stop() no process of the bot is left.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
from pathlib import Path

import pytest
import zmq

from arena import sandbox
from arena.sandbox import config as sandbox_config
from arena.sandbox import launch, procs
from arena.sandbox import uids as sandbox_uids
from arena.sandbox import seccomp
from arena.sandbox import cgroups
from arena.sandbox import (
    Resources,
    SandboxError,
    SandboxWarning,
    start_bot,
)
from sandboxing import (
    BOTH_MODES,
    BOTS,
    PYTHON,
    REPO,
    SYSTEM_PYTHON,
    gone,
    json_report,
    needs_bwrap,
    needs_cgroups,
    needs_fallback_uid,
    start,
    stop_and_check,
    wait_for,
)


# --- hostile bots -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_fork_bomb_is_stopped_by_the_process_limit(mode: str, endpoint_dir: Path) -> None:
    bot = start(endpoint_dir, mode, "sandbox_forkbomb.py", limits=Resources(processes=12))
    err = wait_for(bot, "children=")
    children = int(err.split("children=")[1].split()[0])
    assert 1 <= children < 12
    assert bot.alive()  # the parent survives its failed fork
    assert bot.uid is not None and len(procs._live_pids_of_uid(bot.uid)) == children + 1
    stop_and_check(bot)


@needs_bwrap
def test_unbounded_memory_hits_the_memory_limit(endpoint_dir: Path) -> None:
    bot = start(endpoint_dir, "strict", "sandbox_memory.py", limits=Resources(memory_mb=256))
    assert bot.wait(10) is not None
    err = bot.stderr_text()
    assert "MemoryError after" in err
    assert int(err.split("after ")[1].split()[0]) < 256
    stop_and_check(bot)


@needs_bwrap
@pytest.mark.skipif(cgroups.available() is not None, reason=f"no cgroups for bots here: {cgroups.available()}")
def test_the_bot_as_a_whole_is_bounded_by_its_cgroup(endpoint_dir: Path) -> None:
    """memory_mb bounds each process (rlimit) and, through the bot's cgroup, all of them
    together: 4 children of 150 MB each fit a 256 MB per-process limit, but not 256 MB in all,
    so the kernel kills some of them (a bot of 32 processes of 1 GB each held 32 GB before)."""
    bot = start(endpoint_dir, "strict", "sandbox_forkmem.py", limits=Resources(memory_mb=256))
    err = wait_for(bot, "children:")
    ends = err.split("children: ")[1].split("\n")[0].split(", ")
    assert len(ends) == 4 and "signal 9" in ends, err  # the OOM killer, inside the bot's group
    assert bot.group is not None and bot.group.memory_peak() <= 256 * 1024 * 1024
    group = bot.group
    stop_and_check(bot)
    assert not any(path.exists() for path in group.paths)  # removed with the bot


@needs_bwrap
@pytest.mark.skipif(cgroups.available() is not None or not (cgroups.ROOT / "cpu" / "cpu.shares").is_file(),
                    reason="no cpu cgroup for bots here")
@pytest.mark.perf  # a CPU share
def test_a_bot_with_many_processes_gets_one_bots_share_of_the_cpu(endpoint_dir: Path, tmp_path: Path) -> None:
    """A bot's processes share one cpu group: 8 spinning processes, each in a session of its
    own, weigh as one bot against another bot on the same CPU (as a tournament worker pins a
    table's bots), which then still gets about half of it, not a ninth, and does not time out
    for a hog's sake."""
    cpu = sorted(os.sched_getaffinity(0))[0]
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})  # the bots inherit it
    try:
        hog = start(endpoint_dir, "strict", "sandbox_spinners.py", "8")
        meter = None
        try:
            wait_for(hog, "spinning")
            assert hog.group is not None and len(hog.group.paths) == 3
            assert (hog.group.paths[2] / "cpu.shares").read_text().strip() == str(cgroups.CPU_SHARES)
            other = tmp_path / "other"
            other.mkdir()
            meter = start(other, "strict", "sandbox_cpu_meter.py", "1.5")
            share = float(wait_for(meter, "share=").split("share=")[1].split()[0])
            assert share > 0.3, share  # ~0.5 when weighed bot against bot; ~0.11 process against process
        finally:
            stop_and_check(hog)
            if meter is not None:
                stop_and_check(meter)
    finally:
        os.sched_setaffinity(0, before)


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_child_left_after_the_parent_exits_is_killed(mode: str, endpoint_dir: Path) -> None:
    bot = start(endpoint_dir, mode, "sandbox_orphan.py")
    wait_for(bot, "child=")
    assert bot.wait(5) == 0
    if mode == "none":  # outside a pid namespace the orphan keeps running until stop()
        child = int(bot.stderr_text().split("child=")[1].split()[0])
        assert procs._is_alive(child)
    stop_and_check(bot)


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_setsid_double_fork_escaper_is_killed(mode: str, endpoint_dir: Path) -> None:
    bot = start(endpoint_dir, mode, "sandbox_escape.py")
    err = wait_for(bot, "escaped=")
    escaped = int(err.split("escaped=")[1].split()[0])
    if mode == "none":
        # It left the bot's process group: only the uid scan can find it.
        assert os.getpgid(escaped) != os.getpgid(bot.pid)
    assert bot.uid is not None and len(procs._live_pids_of_uid(bot.uid)) == 2
    stop_and_check(bot)
    if mode == "none":
        assert gone(escaped, timeout=0)


def no_uid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start bots as if their files sat under a folder no other uid can enter (/root): as root
    and without bwrap they then run as root, without a uid of their own."""
    monkeypatch.setattr(launch, "_other_can_reach", lambda *args, **kwargs: False)
    monkeypatch.setattr(sandbox_config, "_warned", {"no-uid", "no-bwrap"})


@needs_cgroups
def test_a_bot_without_a_uid_leaves_no_escaped_process(endpoint_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that runs as root (no uid to scan /proc for) and daemonizes a sleeper with setsid
    and a double fork: the sleeper is re-parented away from the bot and out of its process group,
    yet its cgroup still lists it, so stop() kills it (it outlived the match before)."""
    no_uid(monkeypatch)
    bot = start(endpoint_dir, "none", "sandbox_escape.py", python=PYTHON, limits=Resources(processes=16))
    escaped = None
    try:
        assert bot.uid is None
        escaped = int(wait_for(bot, "escaped=").split("escaped=")[1].split()[0])
        assert os.getpgid(escaped) != os.getpgid(bot.pid)  # out of the process group
        group = bot.group
        if group is not None:  # it also bounds the bot, which runs as root, as a whole
            assert (group.paths[1] / "pids.max").read_text().strip() == "16"
        stop_and_check(bot)
        assert gone(escaped, timeout=0), "the daemonized process outlived stop()"
        assert group is not None and group.paths[0].name.startswith(f"arena-bot-r{os.getpid()}-")
        assert not any(path.exists() for path in group.paths)  # removed with the bot
    finally:
        bot.stop(grace=0)
        if escaped is not None:
            procs._kill(escaped, signal.SIGKILL)


NO_UID_REFEREE = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from arena import sandbox
    from arena.sandbox import launch
    launch._other_can_reach = lambda *args, **kwargs: False  # as if under /root: no uid
    bot = sandbox.start_bot([sys.executable, sys.argv[1]], expose=[Path(sys.argv[1])],
                            endpoint_dir=Path(sys.argv[2]), mode="none")
    deadline = time.monotonic() + 10
    while "escaped=" not in bot.stderr_text() and time.monotonic() < deadline:
        time.sleep(0.02)
    escaped = int(bot.stderr_text().split("escaped=")[1].split()[0])
    group = None if bot.group is None else [str(path) for path in bot.group.paths]
    print(json.dumps({"uid": bot.uid, "escaped": escaped, "group": group}), flush=True)
    time.sleep(60)
    """
)


def start_no_uid_referee(endpoint_dir: Path) -> tuple[subprocess.Popen[bytes], dict]:
    """A referee process whose bot (without a uid) has daemonized a sleeper: it and its report."""
    referee = subprocess.Popen(
        [sys.executable, "-W", "ignore", "-c", NO_UID_REFEREE, str(BOTS / "sandbox_escape.py"), str(endpoint_dir)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert referee.stdout is not None
    line = referee.stdout.readline()
    assert line, "the referee did not report its bot"
    return referee, json.loads(line)


@needs_cgroups
def test_groups_of_a_dead_referee_are_swept_and_their_processes_killed(endpoint_dir: Path) -> None:
    """A referee killed with kill -9 takes its bot with it (PR_SET_PDEATHSIG), but not what the
    bot daemonized; the group named with the dead referee's pid still lists it, and
    reap_stale_groups (run as each referee session starts) kills it and removes the group."""
    referee, report = start_no_uid_referee(endpoint_dir)
    escaped = report["escaped"]
    try:
        assert report["uid"] is None
        assert report["group"], "a bot without a uid got no cgroup"
        paths = [Path(path) for path in report["group"]]
        assert all(path.name.startswith(f"arena-bot-r{referee.pid}-") for path in paths)
        assert escaped in cgroups.BotGroup(tuple(paths)).pids()
        referee.kill()
        referee.wait()
        time.sleep(0.2)
        # The referee's death did not reach it; only a sweep does.  Tests run in parallel start
        # sessions of their own, and each sweeps: one of them may come first.
        assert procs._is_alive(escaped) or not any(path.exists() for path in paths)
        sandbox.reap_stale_groups()
        assert gone(escaped, timeout=1.0)
        assert not any(path.exists() for path in paths)
    finally:
        referee.kill()
        referee.wait()
        procs._kill(escaped, signal.SIGKILL)
        sandbox.remove_stale_workdirs()
        sandbox.reap_stale_groups()  # what a failed check above left


@needs_cgroups
def test_groups_of_a_live_referee_are_left_alone(endpoint_dir: Path) -> None:
    """Another referee's bot without a uid keeps its group and its processes: only the pid in a
    group's name dying makes it stale."""
    referee, report = start_no_uid_referee(endpoint_dir)
    escaped = report["escaped"]
    try:
        assert report["group"], "a bot without a uid got no cgroup"
        paths = [Path(path) for path in report["group"]]
        removed = sandbox.reap_stale_groups()
        assert not set(paths) & set(removed)
        assert all(path.exists() for path in paths)
        assert procs._is_alive(escaped) and escaped in cgroups.BotGroup(tuple(paths)).pids()
    finally:
        referee.kill()
        referee.wait()
        procs._kill(escaped, signal.SIGKILL)
        sandbox.remove_stale_workdirs()
        sandbox.reap_stale_groups()  # its referee is dead now


needs_seccomp = pytest.mark.skipif(seccomp.program() is None, reason="no seccomp filter for this architecture")


@needs_bwrap
@needs_seccomp
def test_seccomp_refuses_namespaces_tracing_and_risky_kernel_interfaces(endpoint_dir: Path) -> None:
    """Without the filter a bot creates a user namespace, and inside it a mount namespace (both
    "ok" here before arena.sandbox.seccomp); with it they fail like any refused call, while threads,
    child processes and forks still work (clone3 says ENOSYS, so the C library uses clone).  The
    calls that made channels between bots fail too (issue 15), and what ordinary bots do with
    their own files, memory and sockets still works."""
    bot = start(endpoint_dir, "strict", "sandbox_syscalls.py")
    report = json_report(bot)
    refused = {
        "ENOSYS": {"clone3", "io_uring_setup", "inotify_init1", "sysinfo", "preadv2", "cachestat", "statmount",
                   "listmount", "io_setup"},
        "ENOLCK": {"flock", "posix_lock", "posix_lock_query", "ofd_lock", "lease"},
        "EINVAL": {"dnotify"},
        "EAFNOSUPPORT": {"socket_vsock", "socket_packet", "socket_alg"},
        "ETIMEDOUT": {"futex_shared_wait"},  # a shared futex may still be waited on
    }
    allowed = {"thread", "subprocess", "fork", "fcntl_flags", "futex_private_wake", "socket_unix",
               "socketpair_unix", "socket_inet", "fadvise_dontneed", "madvise_pageout", "madvise_dontneed"}
    expected = {name: outcome for outcome, names in refused.items() for name in names}
    expected |= dict.fromkeys(allowed, "ok")
    expected |= dict.fromkeys(set(report) - set(expected), "EPERM")  # namespaces, tracing, eBPF, ...
    assert report == expected
    assert {"unshare_user", "ptrace_attach_parent", "sched_setaffinity", "fanotify_init",
            "futex_shared_wake", "futex2_shared_wake"} <= {name for name, o in report.items() if o == "EPERM"}
    stop_and_check(bot)


@pytest.mark.skipif(not Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h").exists(),
                    reason="needs the kernel's x86-64 syscall header")
def test_seccomp_syscall_numbers_are_the_kernels() -> None:
    """The filter names calls by number: every number must be the one in asm/unistd_64.h, and a
    call the header is too old to know must be numbered after every call it knows."""
    header = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h").read_text()
    numbers = {name.removeprefix("__NR_"): int(value) for name, value in
               (line.split()[1:3] for line in header.splitlines() if line.startswith("#define __NR_"))}
    ours = {**seccomp.DENIED, **seccomp.ARG_CHECKED, **seccomp.NOT_IMPLEMENTED, **seccomp.NO_LOCKS,
            **seccomp.IGNORED}
    assert len(ours) == sum(map(len, (seccomp.DENIED, seccomp.ARG_CHECKED, seccomp.NOT_IMPLEMENTED,
                                      seccomp.NO_LOCKS, seccomp.IGNORED)))  # no call in two lists
    known = {name: number for name, number in ours.items() if name in numbers}
    assert known == {name: numbers[name] for name in known}
    newer = {name: number for name, number in ours.items() if name not in numbers}
    assert all(number > max(numbers.values()) for number in newer.values()), newer
    assert len(set(ours.values())) == len(ours)


@needs_bwrap
def test_network_is_unreachable(endpoint_dir: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0)
        port = listener.getsockname()[1]
        bot = start(endpoint_dir, "strict", "sandbox_network.py", str(port))
        report = json_report(bot)
        assert report["loopback"] != "connected"
        assert report["internet"] != "connected"
        with pytest.raises(BlockingIOError):
            listener.accept()
    stop_and_check(bot)


@needs_bwrap
def test_files_outside_expose_are_invisible(endpoint_dir: Path, tmp_path: Path) -> None:
    other_bot = tmp_path / "other_bot.py"
    database = tmp_path / "arena.db"
    for f in (other_bot, database):
        f.write_text("secret")
        f.chmod(0o644)
    paths = [
        str(other_bot),
        str(database),
        str(BOTS / "sandbox_forkbomb.py"),  # a neighbour of the exposed script
        str(REPO / "pyproject.toml"),  # the repository beyond the packages
        "/root/.bashrc",
        str(BOTS / "sandbox_readfile.py"),  # its own script: readable
    ]
    bot = start(endpoint_dir, "strict", "sandbox_readfile.py", *paths)
    report = json_report(bot)
    assert report.pop(str(BOTS / "sandbox_readfile.py")) == "read"
    assert report.pop("append-own-script") != "written"  # exposed read-only
    assert set(report.values()) == {"FileNotFoundError"}, report
    stop_and_check(bot)


@needs_bwrap
def test_many_files_can_not_fill_the_disk(endpoint_dir: Path) -> None:
    """The file size limit is per file; the working directory and /tmp are each a tmpfs of
    tmp_mb, so many files stop there (ENOSPC) and nothing lands on the host's disk (a bot wrote
    2 GB into a host folder before)."""
    bot = start(endpoint_dir, "strict", "sandbox_fill.py", limits=Resources(tmp_mb=24, file_size_mb=16))
    err = wait_for(bot, "done")
    for where in (".", "/tmp"):
        line = next(x for x in err.splitlines() if x.startswith(f"{where}: "))
        assert "errno=28" in line, err  # ENOSPC
        assert int(line.split("written=")[1]) <= 24 * 1024 * 1024, err
    assert bot.workdir is not None and not any(bot.workdir.iterdir())  # the host folder stayed empty
    stop_and_check(bot)


@needs_bwrap
def test_huge_file_is_cut_by_the_file_size_limit(endpoint_dir: Path) -> None:
    bot = start(endpoint_dir, "strict", "sandbox_bigfile.py", limits=Resources(file_size_mb=4))
    err = wait_for(bot, "size=")
    assert "errno=27" in err  # EFBIG: Python ignores SIGXFSZ, so the write fails instead
    assert int(err.split("size=")[1].split()[0]) <= 4 * 1024 * 1024
    stop_and_check(bot)


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_stderr_log_is_bounded_and_keeps_the_tail(mode: str, endpoint_dir: Path) -> None:
    bot = start(endpoint_dir, mode, "sandbox_stderr_flood.py", limits=Resources(stderr_bytes=4096))
    assert bot.wait(20) == 0
    stop_and_check(bot)  # joins the reader, so the buffer is final
    text = bot.stderr_text()
    assert text.endswith("line 099999 of noise\nEND\n")
    note, _, tail = text.partition("\n")
    total = 100_000 * len("line 000000 of noise\n") + len("END\n")
    assert note == f"[... {total - 4096} bytes of stderr dropped ...]"
    assert len(tail.encode()) == 4096


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_environment_is_scrubbed(
    mode: str, endpoint_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_LEAK_MARKER", "secret")
    bot = start(endpoint_dir, mode, "sandbox_introspect.py", env={"BOT_SEED": "7"})
    env = json_report(bot)["env"]
    assert "ARENA_LEAK_MARKER" not in env
    allowed = {"PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "BOT_SEED"}
    if mode == "strict":  # the venv's interpreter by its real path: told where the venv is
        assert env.pop("PYTHONPATH") == launch._python_path()
    # PWD: set by bwrap's --chdir; LC_CTYPE: Python's C-locale coercion.
    assert set(env) - allowed <= {"PWD", "LC_CTYPE"}
    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    assert env["HOME"] == str(bot.workdir)
    assert env["BOT_SEED"] == "7"
    stop_and_check(bot)


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_cwd_is_private_and_writable(mode: str, endpoint_dir: Path) -> None:
    bot = start(endpoint_dir, mode, "sandbox_introspect.py", str(endpoint_dir))
    report = json_report(bot)
    assert report["cwd"] == str(bot.workdir)
    assert report["writable"]
    if mode == "strict":
        # A tmpfs of its own (size-limited), seen only in the bot's mount namespace: open to the
        # bot's uid, invisible to everyone else.
        assert report["cwd_mode"] == 0o777 and report["uid"] == bot.uid
    else:
        assert report["cwd_mode"] == 0o700
        assert report["uid"] == report["cwd_uid"] == bot.uid
    if mode == "strict":
        assert report["visible_pids"] <= 3  # its own pid namespace: bwrap's init and itself
        # No /proc (global counters, the host's mounts), and no pseudo-terminals or /dev/shm.
        assert report["proc"] is False
        assert report["dev"] == ["full", "null", "random", "urandom", "zero"]
    # The socket's folder is on the host's disk: the bot reaches its socket there, but can not
    # write files (that would be a way past its tmpfs limits, to fill the disk).
    assert (endpoint_dir.stat().st_uid, endpoint_dir.stat().st_mode & 0o777) == (os.geteuid(), 0o711)
    if mode == "strict" or bot.uid not in (None, os.geteuid()):
        assert report["socket_dir_writable"] is False and not (endpoint_dir / "filler").exists()
    stop_and_check(bot)


# --- the protocol's channel -------------------------------------------------------------------


def zmq_round_trip(mode: str, endpoint_dir: Path) -> float:
    """Bind, start the echo bot, echo one message; return seconds until the bot's first message."""
    endpoint_dir.mkdir(exist_ok=True)
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    address = f"ipc://{endpoint_dir}/bot.sock"
    sock.bind(address)  # before start_bot, which hands the socket file to the bot's uid
    try:
        t0 = time.perf_counter()
        bot = start_bot(
            [PYTHON, str(BOTS / "sandbox_echo.py"), address],
            expose=[BOTS / "sandbox_echo.py"],
            endpoint_dir=endpoint_dir,
            mode=mode,  # type: ignore[arg-type]
            name="echo",
        )
        try:
            assert sock.poll(10_000), bot.stderr_text()
            elapsed = time.perf_counter() - t0
            assert sock.recv() == b"hello"
            sock.send(b"ping")
            assert sock.poll(5_000), bot.stderr_text()
            assert sock.recv() == b"ping"
            assert bot.wait(5) == 0
        finally:
            stop_and_check(bot)
    finally:
        sock.close()
    return elapsed


@needs_bwrap
def test_zmq_round_trip_through_the_sandbox(endpoint_dir: Path) -> None:
    zmq_round_trip("strict", endpoint_dir)


def test_zmq_round_trip_fallback(endpoint_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_config, "_warned", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        zmq_round_trip("none", endpoint_dir)
    messages = [str(w.message) for w in caught if w.category is SandboxWarning]
    if os.geteuid() == 0 and not launch._other_can_reach(Path(PYTHON)):
        # The venv's interpreter lives under /root (0700): say so, and run as root.
        assert len(messages) == 1 and "bots run as root" in messages[0]


@pytest.mark.perf  # start-up time
@pytest.mark.parametrize("mode", BOTH_MODES)
def test_startup_time(mode: str, endpoint_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_config, "_warned", {"no-uid", "no-bwrap"})
    times = [zmq_round_trip(mode, endpoint_dir) for _ in range(5)]
    median = statistics.median(times)
    print(f"start-up to first message ({mode}): median {median * 1000:.0f} ms of {len(times)}")
    assert median < 3.0


# --- stopping ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_stop_is_graceful_first(mode: str, endpoint_dir: Path) -> None:
    bot = start(endpoint_dir, mode, "sandbox_sleeper.py")
    wait_for(bot, "ready")
    t0 = time.monotonic()
    status = stop_and_check(bot, grace=5.0)
    assert time.monotonic() - t0 < 4.5  # it left on SIGTERM: no kill after the 5 s grace
    assert "got SIGTERM" in bot.stderr_text()
    assert status == 0
    assert bot.stop() == 0  # idempotent


REFEREE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from arena.sandbox import start_bot
    bot = start_bot([sys.argv[1], sys.argv[2]], expose=[Path(sys.argv[2])],
                    endpoint_dir=Path(sys.argv[3]), mode=sys.argv[4])
    print(bot.uid, flush=True)
    time.sleep(60)
    """
)


@pytest.mark.parametrize("mode", BOTH_MODES)
def test_bots_die_with_the_referee(mode: str, endpoint_dir: Path) -> None:
    python = PYTHON if mode == "strict" else SYSTEM_PYTHON
    referee = subprocess.Popen(
        [sys.executable, "-c", REFEREE, python, str(BOTS / "sandbox_sleeper.py")]
        + [str(endpoint_dir), mode],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert referee.stdout is not None
        uid = int(referee.stdout.readline())
        deadline = time.monotonic() + 5
        while not procs._live_pids_of_uid(uid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert procs._live_pids_of_uid(uid)
    finally:
        referee.kill()
        referee.wait()
    deadline = time.monotonic() + 3
    while procs._live_pids_of_uid(uid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert procs._live_pids_of_uid(uid) == []
    # Its workdir is left behind, named with the dead referee's pid.  It belongs to the bot's
    # uid, so the sweep by name leaves it (a bot could plant such a folder); the next lease of
    # the uid, with none of its processes left, removes it.
    left = [p for p in Path(tempfile.gettempdir()).glob("arena-*") if p.stat().st_uid == uid]
    assert [p.name for p in left] and all(f"-w{referee.pid}-" in p.name for p in left)
    assert not set(left) & set(sandbox.remove_stale_workdirs())
    sandbox_uids._remove_stale_workdirs(uid)
    assert not [p for p in Path(tempfile.gettempdir()).glob("arena-*") if p.stat().st_uid == uid]


def test_stale_workdirs_are_those_whose_maker_died(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A killed referee's folders go; a live process's folders, and folders not named by a
    referee of ours, stay."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = int(gone.stdout)
    stale = tmp_path / f"arena-p0-w{dead}-k2j_9x1q"
    live = tmp_path / f"arena-p0-w{os.getppid()}-a8d0pq2z"
    mine = tmp_path / f"arena-p1-w{os.getpid()}-zz0x1y2w"
    other = [tmp_path / f"arena-p0-w{dead}", tmp_path / "arena-ref-w12x", tmp_path / f"arena-x-w{dead}-a-b"]
    for folder in (stale, live, mine, *other):
        folder.mkdir()
    (stale / "notes.txt").write_text("a bot's file")
    planted = tmp_path / f"arena-p2-w{dead}-f1f0f1f0"
    planted.write_text("a file, not a folder")
    theirs = tmp_path / f"arena-p3-w{dead}-b0b0b0b0"  # a bot uid's, as root: never judged by name
    if os.geteuid() == 0:
        theirs.mkdir()
        os.chown(theirs, sandbox_uids.UID_RANGE.start, sandbox_uids.UID_RANGE.start)
    assert sandbox.remove_stale_workdirs() == [stale]
    assert not stale.exists()
    assert all(p.exists() for p in (live, mine, planted, *other))
    assert theirs.exists() == (os.geteuid() == 0)


# --- modes and uids ---------------------------------------------------------------------------


def test_strict_without_bwrap_says_how_to_fix_it(
    endpoint_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(launch, "sandbox_available", lambda: False)
    monkeypatch.setattr(launch.shutil, "which", lambda *a, **k: None)
    with pytest.raises(SandboxError, match=r"apt-get install bubblewrap"):
        start_bot([PYTHON, "-c", "pass"], expose=[], endpoint_dir=endpoint_dir, mode="strict")


def test_unknown_mode_is_refused(endpoint_dir: Path) -> None:
    with pytest.raises(SandboxError, match="unknown sandbox mode"):
        start(endpoint_dir, "loose", "sandbox_sleeper.py")


@needs_fallback_uid
def test_auto_without_bwrap_warns_once(endpoint_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "sandbox_available", lambda: False)
    monkeypatch.setattr(sandbox_config, "_warned", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bots = [
            start(endpoint_dir / str(i), "auto", "sandbox_sleeper.py", python=SYSTEM_PYTHON)
            for i in range(2)
        ]
    for bot in bots:
        assert not bot.sandboxed
        stop_and_check(bot)
    messages = [str(w.message) for w in caught if w.category is SandboxWarning]
    assert len(messages) == 1 and "WITHOUT filesystem, network and pid isolation" in messages[0]


HOLD_A_UID = (
    "import time; from arena.sandbox.uids import _lease_uid; "
    "print(_lease_uid().uid, flush=True); time.sleep(30)"
)


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="bot uids are leased only as root")
def test_concurrent_bots_get_distinct_uids_even_across_processes(endpoint_dir: Path) -> None:
    other = subprocess.Popen(
        [sys.executable, "-c", HOLD_A_UID],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert other.stdout is not None
        held_elsewhere = int(other.stdout.readline())
        bots = [start(endpoint_dir / str(i), "strict", "sandbox_sleeper.py") for i in range(2)]
        uids = {bot.uid for bot in bots}
        assert len(uids) == 2 and held_elsewhere not in uids
        assert all(uid in sandbox_uids.UID_RANGE for uid in uids)
        for bot in bots:
            stop_and_check(bot, grace=0)
    finally:
        other.kill()
        other.wait()
    # Released on stop, and on the other process's death: neither holds a lock any more (tests
    # running in parallel may lease the same uids again at once, so ask the kernel who holds them).
    for uid in uids | {held_elsewhere}:
        holders = lock_holders(sandbox_uids.UID_LOCK_DIR / f"{uid}.lock")
        assert not holders & {os.getpid(), other.pid}, (uid, holders)


def lock_holders(path: Path) -> set[int]:
    """The pids holding a lock on path, from /proc/locks (the inode is its third field)."""
    inode = os.stat(path).st_ino
    holders = set()
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        fields = fields[2:] if fields[1] == "->" else fields[1:]  # "->": a waiter's line
        if int(fields[4].rsplit(":", 1)[1]) == inode:
            holders.add(int(fields[3]))
    return holders


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="bot uids are leased only as root")
def test_bots_of_a_dead_referee_are_stopped_and_leased_ones_are_not() -> None:
    """A referee killed at the wrong moment can leave a bot running under a uid nobody leases;
    reap_orphans (run as each referee session starts) stops it, and never a leased uid's bot."""
    lease = sandbox_uids._lease_uid()
    orphan_uid = next(uid for uid in reversed(sandbox_uids.UID_RANGE) if uid != lease.uid)
    run_as = lambda uid: subprocess.Popen(  # noqa: E731
        ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "sleep", "60"], start_new_session=True)
    orphan, leased = run_as(orphan_uid), run_as(lease.uid)
    try:
        deadline = time.monotonic() + 5
        while not {orphan_uid, lease.uid} <= {u for p in procs._all_procs() for u in p.uids}:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert orphan_uid in sandbox.reap_orphans()
        assert orphan.wait(timeout=5) is not None
        assert leased.poll() is None  # a live referee's bot is left alone
    finally:
        for proc in (orphan, leased):
            proc.kill()
            proc.wait()
        lease.release()
