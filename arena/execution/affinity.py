"""Keep each table on one CPU.

A table is strictly sequential: the referee asks, one bot thinks, the referee goes on.  Yet every
decision wakes a different process (and libzmq's I/O threads on both ends), and a wake-up on
another CPU costs an inter-processor interrupt, which is dear in a virtual machine, and a cold
cache.  Pinning a worker (its referee, and the bots it starts, which inherit the mask) to one
CPU keeps those wake-ups local; with one worker per CPU, tables also stop competing for the
same core.  A pinned worker also runs under SCHED_BATCH (see :func:`pin`).  `arena bench`
measures what both gain (see the README).

Linux only; elsewhere, and when there are more workers than CPUs, nothing is pinned.  A bot
cannot leave its worker's CPU for another worker's: the sandbox refuses ``sched_setaffinity``
under bubblewrap (seccomp), and as root keeps each bot's cgroup to the CPUs of the thread that
started it (``cpuset``), so that without bubblewrap another CPU is refused and a wider mask
changes nothing.

Dask workers are started by someone else (``dask worker``, or a local cluster), so no one
process hands out their CPUs: each worker process claims a free one itself (:func:`claim_cpu`),
through one lock file per CPU that the kernel releases when the process ends, however it ends.
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["available_cpus", "claim_cpu", "current_cpu", "pin", "pinned", "restore", "worker_cpus"]

_claims: list[int] = []  # lock files this process holds, open for its lifetime


def available_cpus() -> list[int]:
    """The CPUs this process may run on, in order (empty where the OS cannot tell)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []


def current_cpu() -> int | None:
    """The CPU this process last ran on (field 39 of /proc/self/stat), if known."""
    try:
        with open("/proc/self/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def worker_cpus(workers: int) -> list[int | None]:
    """The CPU each of ``workers`` workers should keep to (``None``: leave it free).

    Decided once, by the process that starts the workers: one worker takes the CPU this process
    is running on; several take distinct CPUs, starting from it, when there are enough to go round.
    """
    cpus = available_cpus()
    if len(cpus) < 2 or workers > len(cpus):
        return [None] * workers
    here = current_cpu()
    start = cpus.index(here) if here in cpus else 0
    return [cpus[(start + i) % len(cpus)] for i in range(workers)]


def claim_cpu(folder: Path | None = None) -> int | None:
    """A CPU of this machine that no other process has claimed, held until this process ends;
    ``None`` if every CPU is taken, the machine has fewer than two, or the locks are unusable.

    The claims are ``flock`` locks on ``cpu-N.lock`` files in ``folder`` (by default one per
    user in the temporary directory): a worker killed from outside loses its claim at once.
    """
    cpus = available_cpus()
    if len(cpus) < 2:
        return None
    if folder is None:
        folder = Path(tempfile.gettempdir()) / f"arena-cpus-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return None  # not ours (a planted directory or link): do without
    except OSError:
        return None
    for cpu in cpus:
        try:
            fd = os.open(folder / f"cpu-{cpu}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _claims.append(fd)
        return cpu
    return None


def pin(cpu: int | None) -> set[int] | None:
    """Keep this process (and every process and thread it starts from now on) on ``cpu``, under
    SCHED_BATCH: on a shared CPU a woken process then waits for the running one to block
    instead of preempting it, so the referee sends a whole burst of requests before the bots
    run, and they answer it in one wake-up each.

    Returns the previous mask for :func:`restore`, or ``None`` when nothing was changed.
    """
    if cpu is None:
        return None
    try:
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError):
        return None
    _set_policy(getattr(os, "SCHED_BATCH", None))
    return before


def restore(mask: set[int] | None) -> None:
    """Undo :func:`pin` (threads started while pinned keep their mask and policy)."""
    if mask:
        try:
            os.sched_setaffinity(0, mask)
        except (AttributeError, OSError):
            pass
        _set_policy(getattr(os, "SCHED_OTHER", None))


@contextmanager
def pinned(cpu: int | None) -> Iterator[None]:
    """This process on ``cpu`` for the block (see :func:`pin`), as it was after it."""
    mask = pin(cpu)
    try:
        yield
    finally:
        restore(mask)


def _set_policy(policy: int | None) -> None:
    if policy is not None:
        try:
            os.sched_setscheduler(0, policy, os.sched_param(0))
        except (AttributeError, OSError):
            pass
