"""Keep each table on one CPU.

A table is strictly sequential: the referee asks, one bot thinks, the referee goes on.  Yet every
decision wakes a different process (and libzmq's I/O threads on both ends), and a wake-up on
another CPU costs an inter-processor interrupt, which is dear in a virtual machine, and a cold
cache.  Pinning a worker (its referee, and the bots it starts, which inherit the mask) to one
CPU keeps those wake-ups local; with one worker per CPU, tables also stop competing for the
same core.  A pinned worker also runs under SCHED_BATCH (see :func:`pin`).  `arena bench`
measures what both gain (see the README).

Linux only; elsewhere, and when there are more workers than CPUs, nothing is pinned.
"""

from __future__ import annotations

import os

__all__ = ["available_cpus", "current_cpu", "pin", "restore", "worker_cpus"]


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


def _set_policy(policy: int | None) -> None:
    if policy is not None:
        try:
            os.sched_setscheduler(0, policy, os.sched_param(0))
        except (AttributeError, OSError):
            pass
