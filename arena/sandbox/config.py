"""The sandbox's limits, modes and errors, and its warn-once."""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from enum import StrEnum

from arena.errors import ArenaError


_MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Resources:
    """Resource limits of one bot process tree (one match)."""

    memory_mb: int = 1024  # RLIMIT_AS, per process
    cpu_seconds: int = 600  # RLIMIT_CPU, per process lifetime
    processes: int = 32  # RLIMIT_NPROC for the bot's uid; libzmq needs a few threads: keep >= 3
    file_size_mb: int = 16  # RLIMIT_FSIZE
    open_files: int = 256  # RLIMIT_NOFILE
    stderr_bytes: int = 64 * 1024  # tail of stderr kept in memory
    tmp_mb: int = 64  # size of the private /tmp and of the working directory, each (bwrap, or as root)
    tmp_files: int = 16384  # files and folders in each of them (as root): a tmpfs has no other bound


class Mode(StrEnum):
    """How much sandbox a bot must get: ``strict`` refuses to start a bot without bubblewrap,
    ``auto`` uses it where it works (else a warning), ``none`` never does.  The one list of
    modes: the CLI's ``--sandbox``, a tournament file's ``[sandbox] mode`` and the referee all
    read it through :meth:`parse`."""

    AUTO = "auto"
    STRICT = "strict"
    NONE = "none"

    @classmethod
    def parse(cls, text: object) -> "Mode":
        """The mode called ``text``, or :class:`SandboxError` naming the modes there are."""
        try:
            return cls(text)
        except ValueError:
            raise SandboxError(f"unknown sandbox mode {text!r}: use {cls.choices()}") from None

    @classmethod
    def choices(cls) -> str:
        """The modes in words: ``auto, strict or none``."""
        *first, last = (m.value for m in cls)
        return f"{', '.join(first)} or {last}"


class SandboxError(ArenaError):
    """The sandbox cannot be set up as asked; the message says what to do."""


class SandboxWarning(UserWarning):
    """A bot runs with less isolation than the sandbox can give."""


_warned: set[str] = set()


_warned_lock = threading.Lock()


def _first_time(key: str) -> bool:
    """True the first time ``key`` is asked about in this process (one line per missing layer,
    not one per bot)."""
    with _warned_lock:
        if key in _warned:
            return False
        _warned.add(key)
        return True


def _warn_once(key: str, message: str) -> None:
    """Warn once per process: one line per missing layer, not one per bot."""
    if _first_time(key):
        warnings.warn(message, SandboxWarning, stacklevel=3)


SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
