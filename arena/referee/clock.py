"""A bot's clock: the CPU time its processes have used, so that a bot is charged for the time it got.

On a loaded machine a bot's wall-clock time is mostly other programs' doing: organisers saw
``reactor_strong`` forfeit 10 of 108 games on wall-clock timeouts caused only by other load.
So the referee charges each decision the CPU time the bot's processes used from the request to
the answer (with a wall-clock limit as a generous multiple, see :mod:`arena.referee.table`).

Where the bot has a cgroup with a ``cpuacct.usage`` file (a ``cpu,cpuacct`` hierarchy mounted
together, as on many cgroup v1 machines), that one file counts everything the bot runs.  Else
the clock sums the process CPU clocks (``clock_gettime`` on ``CLOCK_PROCESS_CPUTIME_ID`` of
another process: nanoseconds, every thread included) of the bot's processes: those found when it
said hello, and those found whenever :meth:`BotClock.refresh` looks again (the referee does while
it waits on a decision that runs long).  A process found later is counted from then on; one that
exits keeps what it had used.  bubblewrap's own processes are left out: they only wait.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from arena.sandbox import BotProcess

__all__ = ["BotClock", "bot_pids", "cpu_rate"]

_SANDBOX_COMMS = frozenset({"bwrap"})  # processes of the sandbox, not the bot's


def cpu_rate() -> int:
    """How many CPU-seconds a bot's processes can use per second at most: the machine's CPUs (a
    bot may run threads on each, whatever its table's affinity)."""
    return max(1, os.cpu_count() or 1)


def _process_clock(pid: int) -> int:
    """The clock id of a process's CPU time (Linux: MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED))."""
    return ((~pid) << 3) | 2


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (from /proc, without scanning all of it)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            found += [int(child) for child in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def bot_pids(proc: BotProcess) -> set[int]:
    """The bot's own processes: its cgroup's where it has one (a process that left its parent is
    still there), else ``proc``'s process and its descendants; bubblewrap's left out."""
    if proc.group is not None:
        pids = proc.group.pids()
    else:
        pids, todo = set(), [proc.pid]
        while todo:
            pid = todo.pop()
            if pid not in pids:
                pids.add(pid)
                todo += _children(pid)
    return {pid for pid in pids if _comm(pid) not in _SANDBOX_COMMS}


class BotClock:
    """The CPU time, in nanoseconds, a bot's processes have used (see the module).

    :meth:`read` is one system call per process of the bot (one file read with a cpuacct group):
    a few microseconds, taken once per request frame and once per answer frame."""

    def __init__(self, proc: BotProcess) -> None:
        self.proc = proc
        self._usage: int | None = None  # a descriptor of the bot's cpuacct.usage, if it has one
        self._usage_ns = 0  # its last reading
        if proc.group is not None:
            for path in proc.group.paths:
                usage = path / "cpuacct.usage"
                if usage.is_file():
                    try:
                        self._usage = os.open(usage, os.O_RDONLY | os.O_CLOEXEC)
                    except OSError:
                        continue
                    break
        self._clocks: dict[int, int] = {}  # pid -> its clock id
        self._last: dict[int, int] = {}  # pid -> its CPU time when last read
        self._offset = 0  # CPU of processes gone, less that of processes found late before they were
        self.refresh(first=True)

    def refresh(self, *, first: bool = False) -> None:
        """Look for the bot's processes again: one it started since is counted from now on."""
        if self._usage is not None:
            return
        for pid in bot_pids(self.proc) - self._clocks.keys():
            clock = _process_clock(pid)
            try:
                now = time.clock_gettime_ns(clock)
            except OSError:
                continue  # gone already
            self._clocks[pid] = clock
            self._last[pid] = now
            if not first:
                self._offset -= now  # what it used before it was found is not this decision's

    def read(self) -> int:
        """CPU nanoseconds used so far (only differences between readings mean anything)."""
        if self._usage is not None:
            try:
                self._usage_ns = int(os.pread(self._usage, 32, 0))
                return self._usage_ns
            except (OSError, ValueError):
                # The group can not be read any more: count by process from here, going on from
                # its last reading, so that a decision under way is charged neither a jump nor less.
                self.close()
                self._offset = self._usage_ns
                self.refresh()
        for pid, clock in list(self._clocks.items()):
            try:
                self._last[pid] = time.clock_gettime_ns(clock)
            except OSError:
                self._offset += self._last.pop(pid)  # it exited: what it used stays counted
                del self._clocks[pid]
        return self._offset + sum(self._last.values())

    def close(self) -> None:
        if self._usage is not None:
            os.close(self._usage)
            self._usage = None
