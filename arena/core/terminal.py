"""Text from bots (their stderr, the values in a fault message) shown on a terminal.

A bot writes what it likes to stderr, and a terminal obeys control sequences: a hostile bot
could clear the screen, set the window title or print a fake result line over the real one.
Every line of bot text the CLI prints goes through :func:`safe`, which shows such characters
as escapes instead.  Records and ``--json`` keep the text as it was written.

The CLI's process and every process that plays for it (a local worker inherits the set-up; a
Dask worker, started afresh, makes it on its first task) report warnings and log records the
same way, through :func:`report_to_stderr`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

# C0 controls but tab and newline, DEL and the C1 controls (ESC and CSI start the sequences),
# and the invisible format characters that reorder or hide text (bidi overrides, zero widths).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str) -> str:
    """``text`` with every character that could steer a terminal shown as an escape."""
    return _UNSAFE.sub(_escape, text)


class SafeFormatter(logging.Formatter):
    """``level: message`` on one line, as the CLI's errors and warnings are, made :func:`safe`."""

    def format(self, record: logging.LogRecord) -> str:
        return safe(f"{record.levelname.lower()}: {super().format(record)}")


class LiveLine(Protocol):
    """A line redrawn in place on the terminal (a progress line), that a message must not run into."""

    def clear(self) -> None:
        """Blank the line and put the cursor at its start."""

    def redraw(self) -> None:
        """Draw it again, below what was printed."""


_live: tuple[int, LiveLine] | None = None  # the process that draws it, and the line
LIVE_LOCK = threading.RLock()  # multiprocessing-logging emits workers' records from a thread of its own


def set_live_line(line: LiveLine | None) -> None:
    """Messages on stderr from now on clear ``line`` first and redraw it after (None: no line)."""
    global _live
    _live = (os.getpid(), line) if line is not None else None


@contextmanager
def above_live_line() -> Iterator[None]:
    """Write a message on a line of its own above the live line, if this process draws one."""
    with LIVE_LOCK:
        live = _live
        if live is None or live[0] != os.getpid():  # a forked worker's copy: not its line to redraw
            yield
            return
        live[1].clear()
        try:
            yield
        finally:
            live[1].redraw()


class StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record comes (a test runner swaps it), on a
    line of its own above a live progress line."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    def emit(self, record: logging.LogRecord) -> None:
        with above_live_line():
            super().emit(record)

    @property  # type: ignore[override]
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: object = None, line: str | None = None) -> None:
    # One write per line: workers share the terminal, and print's separate newline let two
    # workers' warnings run together on one line.
    with above_live_line():
        sys.stderr.write(safe(f"warning: {message}") + "\n")
        sys.stderr.flush()


def report_to_stderr(logger: str = "") -> None:
    """Warnings (a missing sandbox layer, say) and log records of ``logger`` (the root by default;
    the referee's fault warnings) as one ``warning: ...`` line each on stderr, like errors: not
    Python's file, line number and source line, and with any terminal control characters from
    bots escaped.  Once, however often it is called."""
    warnings.showwarning = _show_warning
    target = logging.getLogger(logger)
    if not any(isinstance(h, StderrHandler) for h in target.handlers):
        handler = StderrHandler()
        handler.setFormatter(SafeFormatter())
        target.addHandler(handler)
        target.setLevel(logging.WARNING)
