"""SIGINT handling shared by the CLI and the Dask backend: Ctrl-C reaches a terminal's whole
process group, so who reacts to it (and how) is set on purpose around the work."""

from __future__ import annotations

import signal
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
