"""The interface every executor implements: what the tournament hands jobs to, whichever
backend plays them (the backends import this module; the package's ``executor_for`` picks one)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable

from arena.execution.events import Event
from arena.execution.tasks import PlayConfig, Task


class Executor(ABC):
    """Plays jobs of matches (each a list of :class:`Task` of one table) and reports, in the
    calling thread, a :class:`GameFinished` as each game ends and a :class:`MatchFinished` or
    :class:`MatchFailed` as each match ends: every match given, once.

    An executor is made for one tournament (its :class:`PlayConfig`) and may be run several
    times (a Swiss plays its rounds one by one); what it holds across runs (a cluster's client)
    it lets go of on :meth:`close`.
    """

    def __init__(self, workers: int, play: PlayConfig) -> None:
        self.workers = workers  # matches played at once: what jobs are sized for
        self.play = play

    @abstractmethod
    def run(self, jobs: Iterable[list[Task]], on_event: Callable[[Event], None]) -> None:
        """Play every job; return once every match is over (or raise, and keep what was reported)."""

    def close(self) -> None:
        """Let go of what it holds across runs."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
