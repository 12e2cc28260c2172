"""A job: matches of one table to play in one referee session, and how a job's matches are
played, by any executor: :func:`play_job` with a :class:`Player`, a worker's referees kept
across jobs, reporting typed events (:mod:`arena.execution.events`)."""

from __future__ import annotations

import itertools
import logging
import math
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

from arena.errors import ArenaError, StorageError
from arena.execution.events import Event, GameFinished, MatchFailed, MatchFinished
from arena.execution.tasks import PlayConfig, Task
from arena.games import Game, GameConfig, get_game
from arena.referee import MatchPlan, Referee, RefereeConfig

log = logging.getLogger("arena.execution")


def table_config(config: GameConfig, seats: int) -> GameConfig:
    """The game config of a table of ``seats`` (a Swiss may seat fewer than the tournament's
    ``seats`` at a table, within ``min_seats``)."""
    return config if config.players == seats else replace(config, players=seats)


def sessions(job: list[Task]) -> list[list[Task]]:
    """A job's matches split among as few bot sessions as play each deal once: a match with the
    seed of one already in a session (a seat rotation of a duplicate deal) goes to the first
    session without it.  A warm bot process that played one rotation of a deal would know the
    cards of the next (issue 15); its next process starts afresh, in a fresh working folder.
    The order of the matches is kept within each session."""
    parts: list[tuple[set[str], list[Task]]] = []
    for task in job:
        part = next((p for p in parts if task.seed not in p[0]), None)
        if part is None:
            part = (set(), [])
            parts.append(part)
        part[0].add(task.seed)
        part[1].append(task)
    return [tasks for _, tasks in parts]


def play_job(referee: Referee, job: list[Task], game: Game, config: GameConfig,
             emit: Callable[[Event], None]) -> None:
    """Play a job's matches in as few sessions as keep every deal to one process of each bot
    (:func:`sessions`), so its bots are started once for all the deals of a table; the matches
    of one lineup (consecutive, same bots in the same seats) are played at the same time, as far
    as the bots offer.

    Emits a :class:`GameFinished` as each game ends and a :class:`MatchFinished` or
    :class:`MatchFailed` as each match ends; a harness error in one lineup does not stop the rest.
    """
    for part in sessions(job):
        _play_session(referee, part, game, config, emit)


def _play_session(referee: Referee, job: list[Task], game: Game, config: GameConfig,
                  emit: Callable[[Event], None]) -> None:
    with referee.session() as session:
        for _, group in itertools.groupby(job, key=lambda task: task.bots):
            tasks = list(group)
            ended: set[int] = set()

            def on_match(number: int, _report: Any, tasks: list[Task] = tasks, ended: set[int] = ended) -> None:
                ended.add(number)
                emit(MatchFinished(tasks[number].match_id))

            try:
                session.play_matches(
                    game, table_config(config, len(tasks[0].bots)), list(tasks[0].bots),
                    [MatchPlan(task.seed, task.match_id, tuple(task.done), task.standings) for task in tasks],
                    on_game=lambda number, report, tasks=tasks: emit(GameFinished(tasks[number], report)),
                    on_match=on_match)
            except StorageError:
                raise  # the store can not take games (disk full, say): stop, a rerun resumes
            except Exception as exc:  # noqa: BLE001 - reported, the tournament goes on
                if not isinstance(exc, ArenaError):  # a fault of ours: its traceback is the bug report
                    log.exception("matches %s failed", ", ".join(t.match_id for t in tasks))
                for number, task in enumerate(tasks):
                    if number not in ended:
                        emit(MatchFailed(task.match_id, f"match {task.match_id} failed: {exc.__class__.__name__}: {exc}"))


class Player:
    """A worker's means to play jobs: one referee per referee config (each its own ZeroMQ
    context), started on first use and kept across jobs.  Make it, and play its first job,
    pinned (:func:`arena.execution.affinity.pin`): the referee's I/O thread keeps to the CPU
    it starts on."""

    def __init__(self) -> None:
        self._referees: dict[RefereeConfig, Referee] = {}
        self._lock = threading.Lock()  # a Dask worker may run tasks in several threads

    def referee(self, config: RefereeConfig) -> Referee:
        with self._lock:
            if config not in self._referees:
                self._referees[config] = Referee(config)
            return self._referees[config]

    def play(self, job: list[Task], play: PlayConfig, emit: Callable[[Event], None]) -> None:
        """Play one job (see :func:`play_job`)."""
        play_job(self.referee(play.referee), job, get_game(play.game), play.game_config, emit)

    def close(self) -> None:
        with self._lock:
            for referee in self._referees.values():
                referee.close()
            self._referees.clear()

    def __enter__(self) -> "Player":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


MAX_JOB = 64  # matches per job: bots start once per bot per job, and a job is what a worker holds


def job_size(matches: int, workers: int) -> int:
    """Matches per job: about two jobs per worker, so the last ones even out the workers, at most :data:`MAX_JOB`."""
    return max(1, min(MAX_JOB, math.ceil(matches / (2 * max(workers, 1)))))


def iter_jobs(tasks: Iterable[Task], size: int) -> Iterator[list[Task]]:
    """Group consecutive matches at the same table (same bots) into jobs of at most ``size``, so
    that a table's bots stay warm across its matches on different deals (never across two seat
    rotations of one deal: :func:`sessions`); made as consumed, so a long plan is never held in
    memory."""
    job: list[Task] = []
    key: frozenset[str] | None = None
    for task in tasks:
        table = frozenset(b.name for b in task.bots)
        if job and (table != key or len(job) >= size):
            yield job
            job = []
        key = table
        job.append(task)
    if job:
        yield job
