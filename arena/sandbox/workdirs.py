"""Bots' working folders: every one made and not yet removed, and their removal (also of a
tree whose directories a bot made read-only)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger("arena.sandbox")

# Every bot working folder made and not yet removed, with the pid of the process that made it:
# a clean-up cut short (a SIGINT that lands in it) would otherwise leave one behind for good.
_workdirs: dict[Path, int] = {}


def _remove_tree(path: Path) -> None:
    """Delete a workdir, even one whose directories the bot made read-only (non-root referee)."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass
    except OSError:
        _force_remove(path)
    if not path.exists():
        _workdirs.pop(path, None)


def _force_remove(path: Path) -> None:
    """Delete a tree whose directories the bot made read-only: writable again first."""
    for root, dirs, _files in os.walk(path):
        for d in [root, *(os.path.join(root, d) for d in dirs)]:
            if not os.path.islink(d):  # never chmod what a bot's symlink points at
                try:
                    os.chmod(d, 0o700)
                except OSError:
                    pass
    shutil.rmtree(path, ignore_errors=True)
    if path.exists():
        log.warning("could not remove the bot working directory %s", path)
