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
    _kill_group_until_gone,
    _kill_uid_until_gone,
    alive_since,
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
    """Stop what the bots of referees that died left in their cgroups, and remove the groups;
    return the groups removed.

    A referee killed at the wrong moment can leave a bot's bwrap, which runs as root, waiting in
    its group (its uid has no process to find it by); the group, named after the uid, still
    lists it.  Only groups whose uid no live referee leases are touched, and only as root (only
    root makes them)."""
    if os.geteuid() != 0:
        return []
    groups = cgroups.bot_groups()
    if not groups:
        return []
    try:
        directory = _lock_dir()
    except SandboxError:
        return []  # leasing a uid will say what is wrong with the directory
    removed = []
    for uid, group in groups.items():
        try:
            lease = _try_lease(directory, uid)
        except OSError:
            continue
        if lease is None:
            continue  # leased: a live referee's bot
        try:
            if group.pids():
                log.warning("stopping processes left in %s by a referee that died", group.paths[0].name)
            if not _kill_group_until_gone(group, timeout=1.0):
                log.error("processes of %s survive SIGKILL; keeping the group", group.paths[0].name)
                continue
            group.remove()
            removed += [path for path in group.paths if not path.exists()]
        finally:
            lease.release()
    return removed


_WORKDIR_OWNER = re.compile(r"-w([0-9]+)-[A-Za-z0-9_]+$")  # the pid in a workdir's name


def remove_stale_workdirs() -> list[Path]:
    """Remove the bot working folders whose maker has died (a referee or worker killed with
    ``kill -9``, or by the OOM killer, cannot clean up); return them.

    A folder's name carries the pid of the process that made it (a live process of that pid that
    started after the folder was made is another one).  Folders of this user's are judged by
    that alone.  A folder that belongs to a bot's uid (a bot without bwrap works in it)
    is removed only while this process holds that uid's lease and the uid has no process: anyone
    can make folders in /tmp, and a live bot could plant one under its own uid and swap it for a
    link while it is removed.  Run after :func:`reap_orphans` and :func:`reap_stale_groups`, so
    that no stale bot still works in one."""
    me, euid = os.getpid(), os.geteuid()
    mine: list[Path] = []
    bots: dict[int, list[Path]] = {}
    for path in Path(tempfile.gettempdir()).glob("arena-*-w*-*"):
        match = _WORKDIR_OWNER.search(path.name)
        if match is None or int(match.group(1)) == me:
            continue
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(info.st_mode) or alive_since(int(match.group(1)), info.st_ctime):
            continue
        if info.st_uid == euid:
            mine.append(path)
        elif euid == 0 and info.st_uid in UID_RANGE:
            bots.setdefault(info.st_uid, []).append(path)
    for path in mine:
        _remove_tree(path)
    removed = list(mine)
    if bots:
        try:
            directory = _lock_dir()
        except SandboxError:
            return removed
        for uid, paths in sorted(bots.items()):
            lease = _try_lease(directory, uid)
            if lease is None:
                continue  # a live referee's bot: its folders are its referee's to remove
            try:
                # A zombie writes nothing: one left for a parent that does not reap (as a
                # container's init may not) kept its uid's folders for good.
                if any(uid in p.uids for p in _all_procs() if not p.zombie):
                    continue  # a stale bot still runs: reap_orphans stops it, a later sweep takes these
                for path in paths:
                    _remove_tree(path)
                    removed.append(path)
            finally:
                lease.release()
    return removed
