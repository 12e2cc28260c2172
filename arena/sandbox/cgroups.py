"""A cgroup per sandboxed bot, where the machine allows it: one bound on the memory and the
number of processes of the bot as a whole.

Resource limits (``setrlimit``) bound each process: a bot of 32 processes of 1 GB each could hold
32 GB and push the machine into the OOM killer.  A cgroup bounds them together; when the bot
passes its memory, the kernel kills one of the bot's own processes (recorded as a crash).

A bot's processes also share one ``cpu`` group where that hierarchy is writable: the
scheduler then weighs the bot as one, so a bot that forks 24 spinning processes gets one
bot's share of the CPU, not 24 times that of the bot it plays against (whose clock runs on
the wall).

Uses the cgroup v1 ``memory`` and ``pids`` hierarchies under ``/sys/fs/cgroup`` when they are
writable (a referee running as root, as bots with uids of their own need).  A bot's group is
named after its leased uid, which no other live bot has, so a group left by a referee that died
is simply taken over.  The process joins its groups before it runs anything of the bot's: the
command starts with a small shell that writes its own pid into them and then execs the rest.
Without such hierarchies (cgroup v2 only, no root) nothing changes and
:func:`available` says why.

A bot without a uid of its own (a root referee whose interpreter or bot sits under a folder
other uids cannot enter, such as ``/root``, and no bubblewrap) gets groups too
(:func:`make_unowned`): its processes cannot be found by uid, and one that left the process
group (``setsid``, double fork) would otherwise survive the match; the group's ``cgroup.procs``
lists it wherever it went (:meth:`BotGroup.pids`).  Such a group has no uid to be taken over by,
so it is named after the referee's pid and a counter (``arena-bot-r{pid}-{n}``): a group whose
referee died is recognised by its name (:func:`unowned_groups`) and swept when the next session
starts.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids")
CPU_SHARES = 1024  # the weight of one ordinary process: a whole bot weighs as one
# The groups of a bot without a uid: the pid of the referee that made them, and a counter.
_UNOWNED = re.compile(r"arena-bot-r([0-9]+)-[0-9]+")
_counter = itertools.count(1)

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


def make(uid: int, memory_bytes: int, processes: int) -> BotGroup:
    """The groups of the bot running as ``uid``, with its limits set (made or taken over).
    Raises OSError if the kernel refuses."""
    return _make(f"arena-bot-{uid}", memory_bytes, processes, take_over=True)


def make_unowned(memory_bytes: int, processes: int) -> BotGroup:
    """New groups for a bot without a uid of its own, named ``arena-bot-r{pid}-{n}`` after this
    process, so that :func:`unowned_groups` knows them for stale once it has died (a name left by
    an earlier process of the same pid is skipped, never shared).  Raises OSError if the kernel
    refuses."""
    for _ in range(1000):  # (a hierarchy mounted twice, say cpu with memory, would refuse every name)
        try:
            return _make(f"arena-bot-r{os.getpid()}-{next(_counter)}", memory_bytes, processes,
                         take_over=False)
        except FileExistsError:
            continue
    raise OSError(f"no free cgroup name arena-bot-r{os.getpid()}-N under {ROOT}")


def _make(name: str, memory_bytes: int, processes: int, *, take_over: bool) -> BotGroup:
    paths: list[Path] = []
    try:
        for controller in CONTROLLERS:
            path = ROOT / controller / name
            path.mkdir(exist_ok=take_over)
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
            path.mkdir(exist_ok=take_over)
            paths.append(path)
            (path / "cpu.shares").write_text(str(CPU_SHARES))
    except OSError:
        if not take_over:
            BotGroup(tuple(paths)).remove()  # new and empty: leave nothing behind
        raise
    return BotGroup(tuple(paths))


def unowned_groups(alive: Callable[[int], bool]) -> list[BotGroup]:
    """The groups of bots without a uid whose referee is no longer ``alive`` (judged by the pid
    in their name; this process's own are never stale), one :class:`BotGroup` per bot."""
    me = os.getpid()
    found: dict[str, list[Path]] = {}
    for controller in (*CONTROLLERS, "cpu"):
        try:
            entries = sorted((ROOT / controller).glob("arena-bot-r*"))
        except OSError:
            continue
        for path in entries:
            match = _UNOWNED.fullmatch(path.name)
            if match is None or not path.is_dir():
                continue
            owner = int(match.group(1))
            if owner != me and not alive(owner):
                found.setdefault(path.name, []).append(path)
    return [BotGroup(tuple(paths)) for _name, paths in sorted(found.items())]
