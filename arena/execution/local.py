"""The local executor: jobs played in this process, or in forked worker processes each on a CPU of its own."""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from arena.core.signals import exit_quietly
from arena.execution import affinity
from arena.execution.jobs import Task, play_job
from arena.games import GameConfig, get_game
from arena.referee import Referee, RefereeConfig
from arena.sandbox import stop_all as stop_all_bots


def _die_with_parent(coordinator: int) -> None:
    """Ask Linux to kill this worker if the coordinator dies (its bots then die with it).

    The request only covers a death after it is made: a coordinator killed while it forked this
    worker is already gone (the worker's parent is then another process), and the worker,
    holding the tournament's lock it inherited, would refuse every resume, so it leaves now."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: workers notice the closed queue instead
        pass
    if os.getppid() != coordinator:
        os._exit(1)


def _worker_main(tasks: Any, results: Any, cpu: int | None, coordinator: int, config: RefereeConfig,
                 game_name: str, game_config: GameConfig) -> None:
    """A worker process: its own CPU (when there are enough), its own ZeroMQ context and referee;
    plays the jobs it is sent on its own pipe until it gets ``None``.  Pipes of its own, and no
    lock shared with other workers, so that killing it harms nothing but its own job."""
    _die_with_parent(coordinator)
    signal.signal(signal.SIGINT, exit_quietly)
    affinity.pin(cpu)  # before the referee's I/O thread starts
    game = get_game(game_name)
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def read() -> None:  # takes each job off the pipe at once, so the coordinator never waits to send
        while True:
            try:
                message = tasks.recv()
            except (EOFError, OSError):
                message = None
            inbox.put(message)
            if message is None:
                return

    threading.Thread(target=read, daemon=True).start()
    try:
        with Referee(config) as referee:
            while (message := inbox.get()) is not None:
                number, job = message
                results.send(("start", number))
                try:
                    play_job(referee, job, game, game_config, lambda kind, payload: results.send((kind, payload)))
                finally:
                    results.send(("job", number))
    finally:
        # A SIGINT can land inside a bot's clean-up and cut it short; and a forked process
        # leaves without running atexit hooks: sweep up what is left of this worker's bots.
        stop_all_bots()


@dataclass(slots=True)
class _Held:
    """A job a worker holds: whether it started it, and its matches not over yet."""

    number: int
    job: list[Task]
    unfinished: set[str]
    started: bool = False


class _Worker:
    """One worker process of the local executor, with the jobs it holds (at most two: one
    playing, one waiting, so it never idles between jobs)."""

    def __init__(self, context: Any, cpu: int | None, args: tuple[Any, ...]) -> None:
        self.cpu = cpu
        tasks_out, self.tasks = context.Pipe(duplex=False)
        self.results, results_in = context.Pipe(duplex=False)
        self.process = context.Process(target=_worker_main, args=(tasks_out, results_in, cpu, os.getpid(), *args),
                                       daemon=True)
        self.process.start()
        tasks_out.close()
        results_in.close()
        self.held: list[_Held] = []

    def give(self, number: int, job: list[Task]) -> None:
        self.held.append(_Held(number, job, {task.match_id for task in job}))
        try:
            self.tasks.send((number, job))
        except OSError:
            pass  # it just died: give_up hands the job, not started, to its replacement

    def receive(self, on_event: Callable[[str, Any], None]) -> int:
        """Handle what it has sent so far; the number of jobs it finished."""
        finished = 0
        try:
            while self.held and self.results.poll():
                kind, payload = self.results.recv()
                if kind == "start":
                    next(h for h in self.held if h.number == payload).started = True
                elif kind == "job":
                    self.held = [h for h in self.held if h.number != payload]
                    finished += 1
                else:
                    if kind in ("match", "error"):
                        match_id = payload if kind == "match" else payload[0]
                        for held in self.held:
                            held.unfinished.discard(match_id)
                    on_event(kind, payload)
        except (EOFError, OSError):
            pass  # it died; what it sent before is handled
        return finished

    def give_up(self, on_event: Callable[[str, Any], None]) -> list[list[Task]]:
        """It died (killed from outside: the OOM killer, an operator): report the unfinished
        matches of the job it had started (its finished games are stored; a rerun plays the
        rest), stop it for good, and return the jobs it had not started, for another worker."""
        for held in self.held:
            for match_id in sorted(held.unfinished) if held.started else ():
                on_event("error", (match_id, f"match {match_id} failed: its worker process "
                                             f"({self.process.pid}) died; run the tournament again to play it"))
        unstarted = [held.job for held in self.held if not held.started]
        self.held = []
        self.stop()
        return unstarted

    def interrupt(self) -> None:
        """Have it leave its job now, cleaning up (see :func:`arena.core.signals.exit_quietly`), rather
        than finish it: asked to stop, a worker finishes its job first, and is killed after 5 s."""
        if self.process.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGINT)

    def stop(self) -> None:
        """Ask it to exit, and make sure it does."""
        try:
            self.tasks.send(None)
        except OSError:
            pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.tasks.close()
        self.results.close()


def execute(jobs: Iterable[list[Task]], workers: int, config: RefereeConfig, game_name: str,
            game_config: GameConfig, on_event: Callable[[str, Any], None]) -> None:
    """Play the jobs, calling ``on_event`` in this process for each ``("game", (task, report))``,
    ``("match", id)`` or ``("error", (id, text))`` as soon as it happens.

    One worker plays in this process; more are forked processes (multiprocessing-logging needs
    fork), each sending every game back on its own pipe the moment it is over.  Jobs are taken
    from ``jobs`` only as workers free up (two held per worker), so the coordinator's memory does
    not grow with the tournament.  Each worker keeps to one CPU with its bots (:mod:`arena.execution.affinity`).  A worker
    killed from outside costs only the matches of its job it had not finished (reported as
    errors, played by a rerun); it is replaced and the tournament goes on.
    """
    pending = iter(jobs)
    first = next(pending, None)
    if first is None:
        return  # nothing to play: no referee, no pool
    pending = itertools.chain([first], pending)
    if workers <= 1:
        mask = affinity.pin(affinity.worker_cpus(1)[0])
        try:
            with Referee(config) as referee:
                for job in pending:
                    play_job(referee, job, get_game(game_name), game_config, on_event)
        finally:
            affinity.restore(mask)
        return
    context = multiprocessing.get_context("fork")
    cpus = affinity.worker_cpus(workers)
    args = (config, game_name, game_config)
    numbers = itertools.count()
    retry: list[list[Task]] = []  # jobs a dead worker had been sent but had not started

    def next_job(worker: _Worker) -> None:
        job = retry.pop() if retry else next(pending, None)
        if job is not None:
            worker.give(next(numbers), job)

    pool = [_Worker(context, cpu, args) for cpu in cpus]
    try:
        for worker in pool:
            next_job(worker)
            next_job(worker)
        while any(w.held for w in pool):
            busy = [w for w in pool if w.held]
            multiprocessing.connection.wait([w.results for w in busy] + [w.process.sentinel for w in busy], timeout=1.0)
            for worker in busy:
                for _ in range(worker.receive(on_event)):
                    next_job(worker)
                if worker.held and not worker.process.is_alive():
                    retry.extend(worker.give_up(on_event))
                    replacement = pool[pool.index(worker)] = _Worker(context, worker.cpu, args)
                    next_job(replacement)
                    next_job(replacement)
    except BaseException:
        # Stopped early (SIGTERM, which reaches this process alone, or an error here): a Ctrl-C
        # has reached the workers already, the rest must be passed on, or each worker played its
        # job to the end, was killed after 5 s, and left its bots' folders behind.
        for worker in pool:
            worker.interrupt()
        raise
    finally:
        for worker in pool:
            worker.stop()
