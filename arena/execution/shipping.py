"""Jobs for another machine: each bot travels with the job as its file's bytes and a command
template (:func:`arena.bots.package.ship`), and is written into a cache of the machine that
plays it (:func:`bot_cache`), one file per content, then run from there.

Any executor whose workers need not share the coordinator's filesystem ships its jobs so.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from arena.bots.package import ShippedBot, ship, unship
from arena.execution.tasks import Task
from arena.referee import BotSpec


@dataclass(frozen=True, slots=True)
class ShippedJob:
    """A job as another machine can play it: its tasks, and each of its bots packed."""

    tasks: tuple[Task, ...]
    bots: tuple[tuple[BotSpec, ShippedBot], ...]  # each bot of the tasks, as named here, and packed


class Shipper:
    """Packs jobs, reading each bot's file once however many jobs it plays in."""

    def __init__(self) -> None:
        self._packed: dict[BotSpec, ShippedBot] = {}

    def pack(self, job: list[Task]) -> ShippedJob:
        bots = []
        for spec in dict.fromkeys(b for task in job for b in task.bots):
            if spec not in self._packed:
                self._packed[spec] = ship(spec)
            bots.append((spec, self._packed[spec]))
        return ShippedJob(tuple(job), tuple(bots))


def unpack(job: ShippedJob, cache: Path) -> list[Task]:
    """The job's tasks with their bots written into ``cache`` and run from there."""
    here = {spec: unship(bot, cache) for spec, bot in job.bots}
    return [replace(task, bots=tuple(here[b] for b in task.bots)) for task in job.tasks]


def bot_cache() -> Path:
    """This machine's bot cache for this user (``$TMPDIR/arena-bots-UID``, shared by its worker
    processes); a private one if that path is not safely ours."""
    path = Path(tempfile.gettempdir()) / f"arena-bots-{os.getuid()}"
    try:
        path.mkdir(exist_ok=True)
        info = path.lstat()
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():  # not a planted dir or link
            os.chmod(path, 0o755)  # a bot's own uid must read it
            return path
    except OSError:
        pass
    private = Path(tempfile.mkdtemp(prefix="arena-bots-"))
    os.chmod(private, 0o755)
    atexit.register(shutil.rmtree, private, True)
    return private
