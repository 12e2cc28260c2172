"""The referee's folder of bot sockets, and the sweep of those that killed referees left behind."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from arena.sandbox.procs import alive_since

WORKROOT_PREFIX = "arena-ref-"


OWNER_FILE = "referee.pid"  # in the folder, not its name: every byte of a socket's path counts


# .../arena-ref-XXXXXXXX/s0-XXXXXXXX/bot.sock after the temporary folder; an ipc path holds 107 bytes.
_SOCKET_SUFFIX = 40


_MAX_SOCKET_PATH = 107


def socket_parent() -> str:
    """The temporary folder, or /tmp where it is too deep for a socket path (a long $TMPDIR)."""
    base = tempfile.gettempdir()
    if len(os.fsencode(base)) + _SOCKET_SUFFIX > _MAX_SOCKET_PATH and os.access("/tmp", os.W_OK):
        return "/tmp"
    return base


# A folder with no owner written after this long was left by a referee killed between making it
# and writing its pid (microseconds apart), or before its file was whole.
UNOWNED_AFTER_S = 600


def remove_stale_workroots() -> None:
    """Remove the socket folders of referees that were killed before they could (``kill -9``):
    on a shared machine they would pile up in /tmp by the hundred.  A folder of this user's whose
    owner file is missing or unreadable goes once it is :data:`UNOWNED_AFTER_S` old."""
    uid, now = os.geteuid(), time.time()
    for path in Path(socket_parent()).glob(f"{WORKROOT_PREFIX}*"):
        pid = owner_pid(path)
        if pid is None:
            try:
                info = os.lstat(path)
            except OSError:
                continue
            # Not ours to judge: another user's, or not a folder (anyone can plant things in /tmp).
            if stat.S_ISDIR(info.st_mode) and info.st_uid == uid and now - info.st_mtime > UNOWNED_AFTER_S:
                shutil.rmtree(path, ignore_errors=True)
            continue
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            continue
        except PermissionError:
            continue  # alive, another user's
        try:
            made = os.lstat(path / OWNER_FILE).st_ctime
        except OSError:
            continue
        if not alive_since(pid, made):  # a later process that was given the dead referee's pid
            shutil.rmtree(path, ignore_errors=True)


def remove_workroots_of(pids: set[int]) -> None:
    """Remove the socket folders of these processes, which have ended (the workers of a pool
    that has stopped): a worker stopped by Ctrl-C or SIGTERM while its referee was starting, or
    killed when it did not leave in time, had no chance to remove its own."""
    for path in Path(socket_parent()).glob(f"{WORKROOT_PREFIX}*"):
        pid = owner_pid(path)
        if pid not in pids:
            continue
        try:
            made = os.lstat(path / OWNER_FILE).st_ctime
        except OSError:
            continue
        # A worker that ended early in a long run may have lent its pid to a later process (a
        # referee of another run, say) that made this folder: a live process as old as the
        # folder is its maker, and the folder is its own.
        if pid is not None and not alive_since(pid, made):
            shutil.rmtree(path, ignore_errors=True)


def owner_pid(path: Path) -> int | None:
    """The pid in a socket folder's owner file, if the folder and the file are what a referee
    of this user makes: a real folder and a regular file, both ours.  Anyone can plant things in
    /tmp (a FIFO there would block a plain read for ever, and every later run with it)."""
    uid = os.geteuid()
    try:
        folder = os.lstat(path)
        if not stat.S_ISDIR(folder.st_mode) or folder.st_uid != uid:
            return None
        fd = os.open(path / OWNER_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != uid:
            return None
        return int(os.read(fd, 32))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
