"""The execution layer: plays jobs of matches, and reports each game and match as it ends.

It owns playing, never deciding what to play (the tournament's formats) or keeping results (the
coordinator stores each game it is told of).  It imports the referee, the bots and the games,
never the tournament, storage or the CLI.

- ``executor``: :class:`Executor`, the interface every backend implements; :func:`executor_for` picks one,
  and :func:`check_executor` refuses at once what it could not play with;
- ``events``: what an executor reports (:class:`GameFinished`, :class:`MatchFinished`,
  :class:`MatchFailed`), typed, the same from every backend;
- ``tasks``: a :class:`Task` (one match) and the :class:`PlayConfig` every job is played under;
- ``jobs``: jobs of one table, and playing a job with a
  :class:`Player` (a worker's referees, one per config);
- ``ledger``: exactly once: each match's events passed on once, a lost job's matches failed;
- ``shipping``: jobs packed for a worker on another machine, and its bot cache;
- ``affinity``: keeping each table on one CPU;
- ``local`` (forked worker processes on this machine) and ``dask`` (a Dask cluster): the backends.
"""

from __future__ import annotations

from arena.execution.events import Event, GameFinished, MatchFailed, MatchFinished
from arena.execution.executor import Executor
from arena.execution.jobs import iter_jobs, job_size, table_config
from arena.execution.tasks import PlayConfig, Task
from arena.sandbox import check_mode


def executor_for(workers: int, cluster: str | None, play: PlayConfig) -> Executor:
    """The local executor of ``workers`` processes, or with ``cluster`` (``"local"`` or a
    scheduler's address) the Dask one."""
    if cluster is None:
        from arena.execution.local import LocalExecutor

        return LocalExecutor(workers, play)
    from arena.execution.dask import DaskExecutor  # which needs Dask only once it connects

    return DaskExecutor(cluster, workers, play)


def check_executor(cluster: str | None, sandbox_mode: str) -> None:
    """Refuse now, before anything is started or stored, what :func:`executor_for` could not
    play with: a ``cluster`` that names no scheduler, or a sandbox mode this machine can not give
    the bots it would start (a remote cluster's workers have their own bubblewrap, or not)."""
    if cluster is not None:
        from arena.execution.dask import check_address  # which needs Dask only once it connects

        check_address(cluster)
    if cluster in (None, "local"):
        check_mode(sandbox_mode)


__all__ = ["Event", "Executor", "GameFinished", "MatchFailed", "MatchFinished", "PlayConfig", "Task", "check_executor",
           "executor_for", "iter_jobs", "job_size", "table_config"]
