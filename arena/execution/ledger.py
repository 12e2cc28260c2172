"""Exactly once, for every executor: the coordinator's account of the matches it has given out.

A match is *open* from the moment its job is given out until its end is reported.  Only the
events of open matches are passed on, so a match that comes twice (its job played again after
a worker died) is taken once: the first time stands.  A job that is lost (its worker killed, or
its task failed) has its open matches reported as failed, and a rerun of the tournament plays
what is missing; a job that ends leaves no match open.  The account holds the jobs in flight
only, so it does not grow with the tournament.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterable

from arena.execution.events import Event, GameFinished, MatchFailed, MatchOver
from arena.execution.tasks import Task


class Ledger:
    """Passes on each open match's events to ``on_event``, once (see the module's docstring)."""

    def __init__(self, on_event: Callable[[Event], None]) -> None:
        self.on_event = on_event
        self._jobs: dict[Hashable, list[Task]] = {}
        self._open: dict[str, Task] = {}  # match id -> its task, as given out here

    def give(self, key: Hashable, job: Iterable[Task]) -> None:
        """Job ``key`` is given out: its matches are open."""
        self._jobs[key] = list(job)
        for task in self._jobs[key]:
            self._open[task.match_id] = task

    def forward(self, event: Event) -> None:
        """Pass ``event`` on if its match is open; an end closes the match."""
        task = self._open.get(event.match_id)
        if task is None:
            return  # played again by a rerun of its job, or not ours: the first time stands
        if isinstance(event, MatchOver):
            del self._open[event.match_id]
        elif isinstance(event, GameFinished) and event.task is not task:
            # A copy from another process: the task as given out here (a remote worker's copy
            # names its own machine's bot files).
            event = dataclasses.replace(event, task=task)
        self.on_event(event)

    def lost(self, key: Hashable, message: Callable[[str], str]) -> None:
        """Job ``key`` will not finish: report each of its open matches as failed, with ``message(match_id)``."""
        for task in self._jobs.pop(key, ()):
            if task.match_id in self._open:
                self.forward(MatchFailed(task.match_id, message(task.match_id)))

    def done(self, key: Hashable) -> None:
        """Job ``key`` ended; a match it left open (which the player never does) has failed."""
        self.lost(key, lambda match_id: f"match {match_id} failed: its job ended without finishing it")

    def __len__(self) -> int:
        """Open matches."""
        return len(self._open)
