"""Finding a bot's processes (by uid, by descent, by cgroup) and killing them until they are gone."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from arena.sandbox import cgroups
from arena.sandbox.config import SAFE_PATH

# How long stop() keeps killing before it gives up on a process (it never should).
_KILL_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True)
class _Proc:
    pid: int
    ppid: int
    uids: tuple[int, ...]  # real, effective, saved, filesystem
    zombie: bool
    comm: str


def _read_proc(pid: int) -> _Proc | None:
    """One process's identity, from status (not the /proc dir owner, which a bot can hide)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    try:
        return _Proc(
            pid=pid,
            ppid=int(fields["PPid"]),
            uids=tuple(int(u) for u in fields["Uid"].split()),
            zombie=fields["State"].startswith(("Z", "X")),
            comm=fields.get("Name", ""),
        )
    except (KeyError, ValueError):
        return None


def _all_procs() -> list[_Proc]:
    procs = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (p := _read_proc(int(entry))) is not None:
            procs.append(p)
    return procs


def _live_pids_of_uid(uid: int) -> list[int]:
    """Processes (not zombies: they are dead, only not yet reaped) with any uid equal to uid."""
    return [p.pid for p in _all_procs() if uid in p.uids and not p.zombie]


def _descendants(root: int) -> list[_Proc]:
    """root and everything below it (orphans reparented elsewhere are not found)."""
    procs = _all_procs()
    children: dict[int, list[_Proc]] = {}
    by_pid = {p.pid: p for p in procs}
    for p in procs:
        children.setdefault(p.ppid, []).append(p)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in by_pid:
            found.append(by_pid[pid])
        todo.extend(c.pid for c in children.get(pid, []))
    return found


def _is_alive(pid: int) -> bool:
    p = _read_proc(pid)
    return p is not None and not p.zombie


def started_at(pid: int) -> float | None:
    """When process pid started (seconds since the epoch), or None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    ticks = int(text.rsplit(")", 1)[1].split()[19])  # field 22: the start, in ticks after boot
    booted = time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)
    return booted + ticks / os.sysconf("SC_CLK_TCK")


def alive_since(pid: int, made: float) -> bool:
    """True if a live process pid started no later than ``made`` (a file's ctime): the process
    that made a file named with its pid, not a later one given the same pid (pids wrap around
    fast on a busy machine: 32768 by default)."""
    if not _is_alive(pid):
        return False
    start = started_at(pid)
    return start is not None and start <= made + 0.05  # (a tick is 10 ms; clocks are read apart)


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def _kill_as_uid(uid: int, sig: int) -> bool:
    """kill(-1, sig) as the uid: the kernel signals every process of it, forks included."""
    kill = shutil.which("kill", path=SAFE_PATH)
    if kill is None:
        return False
    try:
        done = subprocess.run(
            [kill, f"-{int(sig)}", "--", "-1"],
            user=uid,
            group=uid,
            extra_groups=[],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        # E.g. the fork bomb fills the uid's process budget; the /proc scan still kills.
        return False
    # kill exits 1 when there was nothing to signal: that is fine too.
    return done.returncode in (0, 1)


def _kill_uid_until_gone(uid: int, timeout: float = _KILL_TIMEOUT) -> bool:
    """SIGKILL every process of uid until none is left; False if some survive the timeout."""
    deadline = time.monotonic() + timeout
    while live := _live_pids_of_uid(uid):
        if time.monotonic() > deadline:
            return False
        _kill_as_uid(uid, signal.SIGKILL)
        for pid in live:
            _kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    return True


def _kill_group_until_gone(group: cgroups.BotGroup, timeout: float = _KILL_TIMEOUT) -> bool:
    """SIGKILL every process in the bot's cgroups until none is left; False if some survive the
    timeout.  What a bot without a uid has instead of :func:`_kill_uid_until_gone`: a process
    that left the process group (``setsid``, double fork) is still listed in its group."""
    deadline = time.monotonic() + timeout
    while live := [pid for pid in group.pids() if _is_alive(pid)]:
        if time.monotonic() > deadline:
            return False
        for pid in live:
            _kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    return True
