"""What a killed referee leaves behind (bot processes, cgroups, working folders), swept by the next one."""

from __future__ import annotations

import logging
import os
import re
import stat
import tempfile
from pathlib import Path

from arena.sandbox import cgroups
from arena.sandbox.config import SandboxError
from arena.sandbox.procs import (
    _all_procs,
    _is_alive,
    _kill_group_until_gone,
    _kill_uid_until_gone,
)
from arena.sandbox.uids import UID_RANGE, _lock_dir, _try_lease
from arena.sandbox.workdirs import _remove_tree

log = logging.getLogger("arena.sandbox")


def reap_orphans() -> list[int]:
    """Stop the bots of referees that died without stopping them (the uids whose lease nobody
    holds, yet which have processes); return those uids.

    A referee killed at the wrong moment (before bwrap could ask to die with it, or in the
    way of bubblewrap's own nested process) can leave a bot waiting on its socket for ever;
    leasing its uid again used to be the only thing that stopped it.  Only as root (bots have
    uids of their own only then); one scan of /proc when nothing is left over."""
    if os.geteuid() != 0:
        return []
    found = sorted({uid for p in _all_procs() if not p.zombie for uid in p.uids if uid in UID_RANGE})
    if not found:
        return []
    try:
        directory = _lock_dir()
    except SandboxError:
        return []  # leasing a uid will say what is wrong with the directory
    reaped = []
    for uid in found:
        try:
            lease = _try_lease(directory, uid)
        except OSError:
            continue
        if lease is None:
            continue  # leased: a live referee's bot
        try:
            log.warning("stopping processes of uid %d left by a referee that died", uid)
            _kill_uid_until_gone(uid, timeout=1.0)
            reaped.append(uid)
        finally:
            lease.release()
    return reaped


def reap_stale_groups() -> list[Path]:
    """Stop the bots without a uid of referees that died, and remove their cgroups; return the
    groups removed.

    A bot without a uid of its own (see the module's docstring) cannot be found by uid, and the
    signal that kills it with its referee does not reach a process that forked away from it; its
    cgroup, named with its referee's pid, still lists every such process.  Only as root (only
    root makes such groups); groups whose referee lives are left alone."""
    if os.geteuid() != 0:
        return []
    removed = []
    for group in cgroups.unowned_groups(alive=_is_alive):
        if group.pids():
            log.warning("stopping processes of %s left by a referee that died", group.paths[0].name)
        if not _kill_group_until_gone(group, timeout=1.0):
            log.error("processes of %s survive SIGKILL; keeping the group", group.paths[0].name)
            continue
        group.remove()
        removed += [path for path in group.paths if not path.exists()]
    return removed


_WORKDIR_OWNER = re.compile(r"-w([0-9]+)-[A-Za-z0-9_]+$")  # the pid in a workdir's name


def remove_stale_workdirs() -> list[Path]:
    """Remove the bot working folders whose maker has died (a referee or worker killed with
    ``kill -9``, or by the OOM killer, cannot clean up); return them.

    A folder's name carries the pid of the process that made it.  Only folders of this user's are
    judged: anyone can make folders in /tmp, and a live bot of another referee could plant one
    under its own uid and swap it for a link while it is removed.  (A bot uid's folders are
    removed when the uid is leased again, once none of its processes is left.)  Run after
    :func:`reap_orphans` and :func:`reap_stale_groups`, so that no stale bot still works in one."""
    me, euid = os.getpid(), os.geteuid()
    removed = []
    for path in Path(tempfile.gettempdir()).glob("arena-*-w*-*"):
        match = _WORKDIR_OWNER.search(path.name)
        if match is None or int(match.group(1)) == me:
            continue
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == euid and not _is_alive(int(match.group(1))):
            _remove_tree(path)
            removed.append(path)
    return removed


