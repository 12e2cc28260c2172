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
from arena.execution.events import Event
from arena.execution.executor import Executor
from arena.execution.jobs import Player
from arena.execution.ledger import Ledger
from arena.execution.tasks import PlayConfig, Task
from arena.referee.workroot import remove_workroots_of
from arena import sandbox
from arena.sandbox import stop_all as stop_all_bots


@dataclass(frozen=True, slots=True)
class _Started:
    """A worker's word on its pipe: it began job ``number``."""

    number: int


@dataclass(frozen=True, slots=True)
class _Done:
    """A worker's word on its pipe: it ended job ``number`` (every match of it reported)."""

    number: int


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


def _worker_main(tasks: Any, results: Any, cpu: int | None, coordinator: int, play: PlayConfig) -> None:
    """A worker process: its own CPU (when there are enough), its own ZeroMQ context and referee;
    plays the jobs it is sent on its own pipe until it gets ``None``, and sends back every event
    (and when it starts and ends each job) on its other pipe.  Pipes of its own, and no lock
    shared with other workers, so that killing it harms nothing but its own job."""
    _die_with_parent(coordinator)
    signal.signal(signal.SIGINT, exit_quietly)
    affinity.pin(cpu)  # before the referee's I/O thread starts
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
        with Player() as player:
            while (message := inbox.get()) is not None:
                number, job = message
                results.send(_Started(number))
                try:
                    player.play(job, play, results.send)
                finally:
                    results.send(_Done(number))
    finally:
        # A SIGINT can land inside a bot's clean-up and cut it short; and a forked process
        # leaves without running atexit hooks: sweep up what is left of this worker's bots.
        stop_all_bots()


@dataclass(slots=True)
class _Held:
    """A job a worker holds, and whether it started it."""

    number: int
    job: list[Task]
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
        self.held.append(_Held(number, job))
        try:
            self.tasks.send((number, job))
        except OSError:
            pass  # it just died: give_up hands the job, not started, to its replacement

    def receive(self, ledger: Ledger) -> int:
        """Handle what it has sent so far; the number of jobs it finished."""
        finished = 0
        try:
            while self.held and self.results.poll():
                match self.results.recv():
                    case _Started(number):
                        next(h for h in self.held if h.number == number).started = True
                    case _Done(number):
                        self.held = [h for h in self.held if h.number != number]
                        ledger.done(number)
                        finished += 1
                    case event:
                        ledger.forward(event)
        except (EOFError, OSError):
            pass  # it died; what it sent before is handled
        return finished

    def give_up(self, ledger: Ledger) -> list[tuple[int, list[Task]]]:
        """It died (killed from outside: the OOM killer, an operator): report the unfinished
        matches of the job it had started (its finished games are stored; a rerun plays the
        rest), stop it for good, and return the jobs it had not started, for another worker."""
        pid = self.process.pid
        for held in self.held:
            if held.started:
                ledger.lost(held.number, lambda match_id: f"match {match_id} failed: its worker process ({pid}) "
                                                          "died; run the tournament again to play it")
        unstarted = [(held.number, held.job) for held in self.held if not held.started]
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


class LocalExecutor(Executor):
    """Plays on this machine: in this process with one worker, else in forked worker processes.

    Forked (multiprocessing-logging needs fork), each worker sends every game back on its own
    pipe the moment it is over.  Jobs are taken from ``jobs`` only as workers free up (two held
    per worker), so the coordinator's memory does not grow with the tournament.  Each worker
    keeps to one CPU with its bots (:mod:`arena.execution.affinity`).  A worker killed from
    outside costs only the matches of its job it had not finished (reported as failed, played by
    a rerun); it is replaced and the tournament goes on.
    """

    def run(self, jobs: Iterable[list[Task]], on_event: Callable[[Event], None]) -> None:
        pending = iter(jobs)
        first = next(pending, None)
        if first is None:
            return  # nothing to play: no referee, no pool
        pending = itertools.chain([first], pending)
        if self.workers <= 1:
            with affinity.pinned(affinity.worker_cpus(1)[0]), Player() as player:
                for job in pending:
                    player.play(job, self.play, on_event)
            return
        self._pool(pending, Ledger(on_event))

    def _pool(self, pending: Iterable[list[Task]], ledger: Ledger) -> None:
        context = multiprocessing.get_context("fork")
        # Never more workers than jobs: --workers 40 for two matches forked 40 processes.
        jobs = iter(pending)
        head = list(itertools.islice(jobs, self.workers))
        jobs = itertools.chain(head, jobs)
        cpus = affinity.worker_cpus(len(head))
        numbers = itertools.count()
        retry: list[tuple[int, list[Task]]] = []  # jobs a dead worker had been sent but had not started

        def next_job(worker: _Worker) -> None:
            if retry:
                worker.give(*retry.pop())
            elif (job := next(jobs, None)) is not None:
                number = next(numbers)
                ledger.give(number, job)
                worker.give(number, job)

        pool = [_Worker(context, cpu, (self.play,)) for cpu in cpus]
        started = {w.process.pid for w in pool}  # every worker's, replacements too: see the finally
        try:
            for worker in pool:
                next_job(worker)
                next_job(worker)
            while any(w.held for w in pool):
                busy = [w for w in pool if w.held]
                multiprocessing.connection.wait([w.results for w in busy] + [w.process.sentinel for w in busy],
                                                timeout=1.0)
                for worker in busy:
                    for _ in range(worker.receive(ledger)):
                        next_job(worker)
                    if worker.held and not worker.process.is_alive():
                        retry.extend(worker.give_up(ledger))
                        replacement = pool[pool.index(worker)] = _Worker(context, worker.cpu, (self.play,))
                        started.add(replacement.process.pid)
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
            # The workers have ended: what one of them left (stopped as its referee started, or
            # killed after 5 s) would stay until a later run's referee swept it: its socket
            # folder, and its bots (stopped here as that sweep stops them) with their folders.
            remove_workroots_of(started)
            sandbox.reap_orphans()
            sandbox.reap_stale_groups()
            sandbox.remove_stale_workdirs()
