"""Making a page's costly value (a large scope's ratings) in a process of its own.

Rating 100,000 games is minutes of pure Python.  Made by a thread of the server, it held the GIL
while every page waited for it after each SQLite call: pages took up to 0.44 s instead of
milliseconds.  A process of its own leaves the server's interpreter to the pages, and the
machine's other core does the rating.

One process per value, started afresh (``spawn``: never a fork of a server that runs threads),
given the database and the value's cache key (:func:`arena.web.views.recipe`), and sending back
the value and the stamp of the games it read.  It is a daemon of the server: it ends with it,
and with the server killed outright, it is killed too (``PR_SET_PDEATHSIG``)."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
from multiprocessing.connection import Connection
from typing import Any

from arena.storage import open_store
from arena.web import views

PR_SET_PDEATHSIG = 1


class ApartFailed(RuntimeError):
    """The process that made a value failed; the message says how."""


def make_apart(db: str, key: tuple[Any, ...]) -> tuple[views.Stamp, Any]:
    """The value of ``key`` over the database at ``db``, made in a new process; waits for it."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(db, key, send, os.getpid()), name=f"arena-web-{key[0]}", daemon=True)
    process.start()
    send.close()  # the child's end: the parent's copy would keep recv() from seeing the child end
    try:
        try:
            ok, payload = receive.recv()
        except EOFError:
            process.join()
            raise ApartFailed(f"the process making {key[0]} ended with status {process.exitcode} "
                              "before it sent anything") from None
        if not ok:
            raise ApartFailed(payload)
        return payload
    finally:
        receive.close()
        if process.is_alive():
            process.kill()
        process.join()


def _child(db: str, key: tuple[Any, ...], send: Connection, parent: int) -> None:
    _die_with_parent()
    if os.getppid() != parent:  # it ended before the signal was asked for
        return
    try:
        with open_store(db, create=False, readonly=True) as store:
            answer: tuple[bool, Any] = (True, views.make_value(store, key))
    except Exception as e:  # sent as text: the page says why (an exception may not pickle)
        answer = (False, f"{type(e).__name__}: {e}")
    send.send(answer)
    send.close()


def _die_with_parent() -> None:
    """Linux: killed when the server ends, however it ends (else it would rate on for minutes)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass
