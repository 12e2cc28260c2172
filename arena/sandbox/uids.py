"""A uid of its own for each bot, leased with ``flock`` so that it is unique on the machine."""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.sandbox import cgroups
from arena.sandbox.config import SandboxError
from arena.sandbox.procs import _Proc, _all_procs, _kill, _kill_group_until_gone, _kill_uid_until_gone, _live_pids_of_uid
from arena.sandbox.workdirs import _remove_tree

log = logging.getLogger("arena.sandbox")

UID_RANGE = range(60001, 61000)


UID_LOCK_DIR = Path("/tmp/arena-uids")


@dataclass(slots=True)
class _UidLease:
    """A uid held by this process through an flock on its lock file."""

    uid: int
    fd: int

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing drops the flock
            self.fd = -1


def _lock_dir() -> Path:
    """The root-owned lock directory; refuse one another user could have planted."""
    try:
        UID_LOCK_DIR.mkdir(mode=0o700)
    except FileExistsError:
        pass
    st = os.lstat(UID_LOCK_DIR)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0 or st.st_mode & 0o022:
        raise SandboxError(
            f"{UID_LOCK_DIR} must be a directory owned by root and not writable by others: "
            f"remove it and try again"
        )
    return UID_LOCK_DIR


def _try_lease(directory: Path, uid: int) -> _UidLease | None:
    """``uid``'s lease if no live process holds it, else None (its lock file is made if need be)."""
    fd = os.open(directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return _UidLease(uid, fd)


def _lease_uid() -> _UidLease:
    """Lease a uid no other running bot on this machine uses, even from another process."""
    directory = _lock_dir()
    for uid in UID_RANGE:
        lease = _try_lease(directory, uid)
        if lease is None:
            continue
        if not _stop_stale(uid):
            lease.release()
            continue
        _remove_stale_workdirs(uid)
        return lease
    raise SandboxError(f"all bot uids {UID_RANGE.start}-{UID_RANGE.stop - 1} are in use")


# The programs of a bot's start-up chain before it reaches its uid (arena.sandbox.launch.LaunchPlan;
# the private mounts of a bot without bwrap are made by our Python).
_CHAIN = frozenset({"sh", "dash", "bash", "bwrap", "prlimit", "chrt", "setpriv"})


def _on_the_way_to(uid: int, procs: list[_Proc] | None = None) -> list[int]:
    """Root processes of a bot's start-up chain bound for ``uid``: each layer's command line
    holds the rest of the chain, setpriv's ``--reuid`` with it (only root can start one)."""
    mark = f"--reuid={uid}".encode()
    found = []
    for p in _all_procs() if procs is None else procs:
        if p.zombie or p.uids[0] != 0 or not (p.comm in _CHAIN or p.comm.startswith("python")):
            continue
        try:
            args = Path(f"/proc/{p.pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if mark in args:
            found.append(p.pid)
    return found


def _stop_stale(uid: int) -> bool:
    """Stop what a referee that died left of a uid now leased; False if something survives.

    Its bots may still run as the uid.  A bot it was starting may still be on its way there
    (root, in its cgroup, in bwrap or setpriv): once there, its guard would find the lifeline
    closed and kill every process of the uid, by then the next referee's bot too."""
    group = cgroups.existing(uid)
    now = _all_procs()
    if _on_the_way_to(uid, now) or (group is not None and group.pids()):
        log.warning("killing what a dead referee left in the cgroups of uid %d or on its way to it", uid)
        if group is not None and not _kill_group_until_gone(group, timeout=1.0):
            return False
        deadline = time.monotonic() + 1.0
        while on_the_way := _on_the_way_to(uid):
            if time.monotonic() > deadline:
                return False
            for pid in on_the_way:
                _kill(pid, signal.SIGKILL)
            time.sleep(0.005)
        now = _all_procs()
    if any(uid in p.uids for p in now):
        if _live_pids_of_uid(uid):
            log.warning("killing stale processes of uid %d left by a dead referee", uid)
        # Unreaped zombies still count towards RLIMIT_NPROC: then another uid is taken.
        if not _kill_uid_until_gone(uid, timeout=1.0) or any(uid in p.uids for p in _all_procs()):
            return False
    return True


def _remove_stale_workdirs(uid: int) -> None:
    """Workdirs of a free uid were left by a referee that died before stop()."""
    for path in Path(tempfile.gettempdir()).glob("arena-*"):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == uid:
            _remove_tree(path)
