"""SIGINT and SIGTERM handling shared by the CLI and the executors: Ctrl-C reaches a terminal's
whole process group, so who reacts to it (and how) is set on purpose around the work."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Handler = Callable[[int, Any], Any] | int | signal.Handlers


@contextmanager
def sigint(handler: Handler) -> Iterator[None]:
    """``handler`` for SIGINT in this block, the previous one restored after.  Outside the main
    thread, where Python can not change signal handlers, the block runs with them as they are."""
    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def children_ignore_sigint() -> Iterator[None]:
    """Processes started in this block ignore SIGINT (they inherit it), while a Ctrl-C that comes
    meanwhile still reaches this process, as KeyboardInterrupt once the block is over.

    SIGINT is blocked as well as ignored: Linux never discards a blocked signal as ignored, so
    it waits, and is delivered to the handler restored at the end.  (Ignoring alone lost a
    Ctrl-C sent while a local Dask cluster started, and the tournament played on.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with sigint(signal.SIG_IGN):
            yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # the handler is back: a waiting Ctrl-C lands now


def exit_quietly(signum: int, frame: Any) -> None:
    """SIGINT in a worker (a Ctrl-C to the terminal, or its coordinator stopping early): leave
    through the ``with`` blocks that stop its bots and remove their folders, without a traceback
    (``SystemExit``); a second SIGINT must not cut that clean-up short."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise SystemExit(130)


class Terminated(KeyboardInterrupt):
    """SIGTERM (a `kill`, a service manager) inside :func:`stopped_by_signals`: the work stops
    cleanly as after a Ctrl-C, and the caller can tell the two apart (`arena run` exits 143)."""


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """Ctrl-C and SIGTERM stop this process's work cleanly: in this block they raise
    :class:`KeyboardInterrupt` (:class:`Terminated` for SIGTERM) in this process only.

    Ctrl-C reaches the terminal's whole process group, local tournament workers included: a
    worker forked inside the block exits quietly instead of printing a traceback (its ``with``
    blocks stop its bots) and the coordinator's clean-up stops the rest.  SIGTERM is sent to
    the coordinator alone; a forked worker that gets one dies of it, as it always did."""
    coordinator = os.getpid()

    def handle(signum: int, frame: object) -> None:
        if os.getpid() != coordinator:  # a worker forked before it set exit_quietly itself
            exit_quietly(signum, frame)
        raise KeyboardInterrupt

    def terminate(signum: int, frame: object) -> None:
        if os.getpid() != coordinator:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        with sigint(handle):
            yield
    finally:
        signal.signal(signal.SIGTERM, previous)
