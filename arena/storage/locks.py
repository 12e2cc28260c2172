"""Lock files beside a database file: who may change its schema, who plays a tournament on it.

An ``flock`` dies with its process however it ends, so a killed run never leaves a stale lock."""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def sidecar(path: str, suffix: str) -> Path:
    """A lock file beside the database (never the database itself: closing any other descriptor
    of that file would drop SQLite's own POSIX locks).  Named after the real path, so that a
    symlink to the database shares its locks; hard links are refused (``sqlite._refuse_hard_links``)."""
    db = Path(os.path.realpath(path))
    name = f".{db.name}.{suffix}"
    if len(os.fsencode(name)) > MAX_NAME:  # a long database name and tournament id: a hash of them
        digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
        name = f".{os.fsencode(db.name)[:120].decode(errors='ignore')}.{digest}.lock"
    return db.with_name(name)


MAX_NAME = 255  # bytes in a file name (NAME_MAX of Linux file systems)


@contextmanager
def file_lock(path: Path, *, wait: bool = True) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` for the block (``wait=False``: BlockingIOError if held)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)  # releases the lock



def is_locked(path: Path) -> bool:
    """Whether some process holds :func:`file_lock` on ``path``; takes nothing and creates
    nothing (a lock file that is not there was never taken, or predates lock files)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
