"""A private mount namespace for a bot that runs without bubblewrap, where the referee is root.

Without bubblewrap a root referee still gives each bot a uid of its own (a bot never runs as
root), but the bot's files may sit where that uid cannot go: the interpreter under ``/root``
(mode 0700, as pyenv installs it), a test's files under ``/tmp/pytest-of-root``.  Rather than
run the bot as root, its command starts in a namespace of its own (mount, IPC, UTS and network)
where:

* ``/tmp``, ``/var/tmp``, ``/dev/shm`` and ``/run/lock`` are new tmpfs (``tmp_mb``, and a bound
  on their files), so the bot writes nothing to the host's temporary folders and sees nothing of
  other bots' there;
* a folder its uid cannot enter (the topmost one on the way to a path it needs) is covered by a
  tmpfs that holds just the paths it needs, bound from the host: ``/root`` shows it the
  interpreter, and nothing else of ``/root``;
* its working folder is a tmpfs of its own, owned by its uid;
* it has no network (only a loopback that is down; its socket to the referee is a file) and no
  System V IPC shared with anyone.

The rest of the host's file system stays as it is (readable where its permissions say so): this
is not bubblewrap's sandbox, only a uid that can work.  Everything goes with the bot's last
process, so a referee killed with ``kill -9`` leaves no mount behind.

:func:`plan` computes the mounts (in the referee); run as a script (``python -I -S mountns.py
SPEC -- COMMAND...``, standard library only) this module makes them and executes COMMAND.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from collections.abc import Callable

TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")

_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC, _CLONE_NEWNET = 0x00020000, 0x04000000, 0x08000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x1000, 0x4000, 0x40000

# ["tmpfs", target, options] | ["bind", source, target] | ["dir", path] | ["file", path] | ["chdir", path]
Op = list[str]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def plan(needed: list[str], *, home: str, tmp_options: str, home_options: str,
         blocked: Callable[[str], str | None]) -> list[Op]:
    """The mounts that give a bot private temporary folders, its working folder ``home`` and
    every path in ``needed``.  ``blocked(path)`` names the topmost folder on the way to path that
    the bot's uid cannot enter, or ``None``.  (Pure: the referee computes it, the script runs it.)"""
    needed = sorted({os.path.normpath(p) for p in needed})
    # A temporary folder that a needed path lies in, or is, stays: it cannot be covered.
    covers = {d: tmp_options for d in TEMP_DIRS
              if os.path.isdir(d) and not os.path.islink(d) and not any(_within(d, p) for p in needed)}
    for path in needed:
        folder = blocked(path)
        if folder is not None and not any(_within(path, c) for c in covers):
            covers[folder] = "mode=0755,size=1m,nr_inodes=1024"
    covers = {c: o for c, o in covers.items() if not any(c != d and _within(c, d) for d in covers)}
    ops: list[Op] = []
    for cover, options in sorted(covers.items()):
        ops.append(["tmpfs", cover, options])
        inside = [p for p in needed if _within(p, cover) and p != cover]
        for path in inside:
            if any(q != path and _within(path, q) for q in inside):
                continue  # bound with the folder it lies in
            if os.path.dirname(path) != cover:
                ops.append(["dir", os.path.dirname(path)])
            ops.append(["dir" if os.path.isdir(path) else "file", path])
            ops.append(["bind", path, path])
    # The process's working folder is the host's, under the new mounts: it moves into its own.
    ops += [["dir", home], ["tmpfs", home, home_options], ["chdir", home]]
    return ops


def _fail(what: str, err: int) -> None:
    print(f"arena sandbox: could not set up the bot's mounts: {what}: {os.strerror(err)}", file=sys.stderr)
    sys.exit(126)


def run(ops: list[Op], *, namespaces: int = _CLONE_NEWNS | _CLONE_NEWUTS | _CLONE_NEWIPC | _CLONE_NEWNET) -> None:
    """Unshare, then make the mounts of ``ops`` (as :func:`plan` made them) in order."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(namespaces) != 0:
        _fail("unshare", ctypes.get_errno())
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        _fail("making / private", ctypes.get_errno())
    # Every source is opened before any tmpfs covers it; a bind then reaches it through its descriptor.
    sources = {op[1]: os.open(op[1], os.O_PATH | os.O_CLOEXEC) for op in ops if op[0] == "bind"}
    for op in ops:
        kind, target = op[0], op[2] if op[0] == "bind" else op[1]
        if kind == "dir":
            os.makedirs(target, mode=0o755, exist_ok=True)
        elif kind == "file":
            if not os.path.lexists(target):
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        elif kind == "tmpfs":
            if libc.mount(b"arena", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, op[2].encode()) != 0:
                _fail(f"tmpfs on {target}", ctypes.get_errno())
        elif kind == "chdir":
            os.chdir(target)
        elif kind == "bind":
            source = f"/proc/self/fd/{sources[op[1]]}".encode()
            if libc.mount(source, target.encode(), None, _MS_BIND | _MS_REC, None) != 0:
                _fail(f"{op[1]} on {target}", ctypes.get_errno())
    for fd in sources.values():
        os.close(fd)


def main(argv: list[str]) -> None:
    """``SPEC -- COMMAND...``: SPEC is the JSON list of :func:`plan`'s mounts."""
    split = argv.index("--")
    run(json.loads(argv[0]))
    command = argv[split + 1:]
    if command:
        os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
