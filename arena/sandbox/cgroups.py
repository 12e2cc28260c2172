"""A cgroup per sandboxed bot, where the machine allows it: one bound on the memory and the
number of processes of the bot as a whole.

Resource limits (``setrlimit``) bound each process: a bot of 32 processes of 1 GB each could hold
32 GB and push the machine into the OOM killer.  A cgroup bounds them together; when the bot
passes its memory, the kernel kills one of the bot's own processes (recorded as a crash).

A bot's processes also share one ``cpu`` group where that hierarchy is writable: the
scheduler then weighs the bot as one, so a bot that forks 24 spinning processes gets one
bot's share of the CPU, not 24 times that of the bot it plays against (whose clock runs on
the wall).  And a ``cpuset`` group keeps it to the CPUs of the referee that started it (a worker
keeps its table on one CPU: a bot must not move itself onto another worker's).

Uses the cgroup v1 ``memory`` and ``pids`` hierarchies under ``/sys/fs/cgroup`` when they are
writable (a referee running as root, as bots with uids of their own need).  A bot's group is
named after its leased uid, which no other live bot has, so a group left by a referee that died
is simply taken over.  The process joins its groups before it runs anything of the bot's: the
command starts with a small shell that writes its own pid into them and then execs the rest.
Without such hierarchies (cgroup v2 only, no root) nothing changes and
:func:`available` says why.

A referee killed with ``kill -9`` leaves its bots' groups behind, and in them whatever of the bot
was still running as root (a bwrap that never got to start its bot): :func:`bot_groups` lists
every bot group, for the sweep of the groups whose uid no live referee leases
(:func:`arena.sandbox.reap_stale_groups`).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids")  # always made: the limits every bot gets
HIERARCHIES = (*CONTROLLERS, "cpu", "cpuset")  # every hierarchy a bot's groups may be in
CPU_SHARES = 1024  # the weight of one ordinary process: a whole bot weighs as one
_NAME = re.compile(r"arena-bot-([0-9]+)")  # a bot's groups, named after its uid

# Writes its own pid into each cgroup.procs given, then execs the command that follows "--".
_JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 126; shift; done; shift; exec "$@"'


@dataclass(frozen=True, slots=True)
class BotGroup:
    """The cgroups of one bot, one per controller."""

    paths: tuple[Path, ...]

    def join_command(self) -> list[str]:
        """A prefix that puts the command after it (and all it starts) into these groups."""
        return ["/bin/sh", "-c", _JOIN, "arena-cgroup-join",
                *(str(path / "cgroup.procs") for path in self.paths), "--"]

    def memory_peak(self) -> int:
        """The most memory the bot's processes held together, in bytes (for tests and reports)."""
        return int((self.paths[0] / "memory.max_usage_in_bytes").read_text())

    def pids(self) -> set[int]:
        """Every process in the groups, or in groups made inside them: as root a bot's process
        may leave its process group and session, but not its cgroup unless it moves itself."""
        found: set[int] = set()
        for path in self.paths:
            for folder, _dirs, _files in os.walk(path):
                try:
                    found.update(int(pid) for pid in Path(folder, "cgroup.procs").read_text().split())
                except (OSError, ValueError):
                    pass
        return found

    def remove(self) -> None:
        """Delete the groups (and any the bot made inside them) once the bot's processes are
        gone (a non-empty group stays)."""
        for path in self.paths:
            for folder, _dirs, _files in os.walk(path, topdown=False):
                try:
                    os.rmdir(folder)
                except OSError:
                    pass


@functools.cache
def available() -> str | None:
    """``None`` if bots can get cgroups here, else why not."""
    if os.geteuid() != 0:
        return "the referee does not run as root"
    for controller in CONTROLLERS:
        folder = ROOT / controller
        if not (folder / "cgroup.procs").is_file() or not os.access(folder, os.W_OK):
            return f"no writable cgroup v1 {controller!r} hierarchy at {folder}"
    if not (ROOT / "memory" / "memory.limit_in_bytes").is_file():  # (a root group has no pids.max)
        return "the memory hierarchy has no memory.limit_in_bytes"
    return None


def make(uid: int, memory_bytes: int, processes: int, cpus: set[int] | None = None) -> BotGroup:
    """The groups of the bot running as ``uid``, with its limits set (made, or taken over from a
    referee that died), kept to ``cpus`` where given and the ``cpuset`` hierarchy is writable.
    Raises OSError if the kernel refuses."""
    name = _name(uid)
    paths: list[Path] = []
    for controller in CONTROLLERS:
        path = ROOT / controller / name
        path.mkdir(exist_ok=True)
        paths.append(path)
    memory, pids = paths
    (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
    reset = memory / "memory.max_usage_in_bytes"
    if reset.exists():
        reset.write_text("0")  # the peak of this bot, not of the uid's earlier ones
    (pids / "pids.max").write_text(str(processes))
    cpu = ROOT / "cpu"
    if (cpu / "cpu.shares").is_file() and os.access(cpu, os.W_OK):  # optional: weigh the bot as one
        path = cpu / name
        path.mkdir(exist_ok=True)
        paths.append(path)
        (path / "cpu.shares").write_text(str(CPU_SHARES))
    cpuset = ROOT / "cpuset"
    if cpus and (cpuset / "cpuset.cpus").is_file() and os.access(cpuset, os.W_OK):
        # A worker keeps its table on one CPU; a bot that asks for another gets EINVAL (under
        # bwrap the seccomp filter refuses it first).  Memory nodes: all of them, as the parent's.
        path = cpuset / name
        path.mkdir(exist_ok=True)
        paths.append(path)
        (path / "cpuset.mems").write_text((cpuset / "cpuset.mems").read_text().strip())
        (path / "cpuset.cpus").write_text(",".join(map(str, sorted(cpus))))
    return BotGroup(tuple(paths))


def _name(uid: int) -> str:
    """The name of the groups of the bot running as ``uid`` (what :data:`_NAME` reads back)."""
    return f"arena-bot-{uid}"


def existing(uid: int) -> BotGroup | None:
    """The groups named after ``uid`` that exist now (left by its last bot), or None."""
    name = _name(uid)
    paths = tuple(path for controller in HIERARCHIES if (path := ROOT / controller / name).is_dir())
    return BotGroup(paths) if paths else None


def bot_groups() -> dict[int, BotGroup]:
    """Every bot's groups on this machine, by the uid they are named after."""
    found: dict[int, list[Path]] = {}
    for controller in HIERARCHIES:
        try:
            entries = sorted((ROOT / controller).glob("arena-bot-*"))
        except OSError:
            continue
        for path in entries:
            match = _NAME.fullmatch(path.name)
            if match is not None and path.is_dir():
                found.setdefault(int(match.group(1)), []).append(path)
    return {uid: BotGroup(tuple(paths)) for uid, paths in sorted(found.items())}
