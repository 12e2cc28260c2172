"""Playing a tournament on a Dask cluster: :class:`DaskExecutor`, the :class:`~arena.execution.Executor`
of the ``--cluster`` option.

Each job (the matches of one table) is one Dask task.  It runs on a worker: the referee and
the bots run there.  As each match ends, the task hands its events (each game's
:class:`~arena.execution.events.GameFinished`, then the match's end) to the coordinator (this
process) through a Dask queue of the run, so that the coordinator stores them, and shows
progress, as the job goes on rather than when it ends; what it could not hand over that way
it returns.  The coordinator stays the only writer to the database.

Exactly once (:mod:`arena.execution.ledger`): a match is handed over whole, once it is over,
and the coordinator takes each match once per run, dropping it when it comes again
(``Store.add_game`` is idempotent by id as well).  When a worker dies mid-job the scheduler runs
the job again elsewhere (``retries`` covers exceptions too) and its matches are played again
from the start: the matches it had finished were stored and are dropped; the one it was playing
was never seen here, so no match mixes games of two attempts.  A Ctrl-C keeps every finished match.

Workers need not share the coordinator's filesystem: each job is shipped with its bots
(:mod:`arena.execution.shipping`), written to a cache directory of the worker's machine
(``$TMPDIR/arena-bots-UID``, one file per content, shared by its workers), then run from there:
Python bots under the worker's own interpreter, ``node`` bots under its ``node``.

Running a cluster by hand::

    dask scheduler                                          # on HOST; listens on tcp://HOST:8786
    dask worker tcp://HOST:8786 --nworkers 2 --nthreads 1   # on each machine that plays
    arena run tournaments/quickstart-reactor.toml --cluster tcp://HOST:8786 --workers 4

Every worker machine needs the project installed in the Python the worker runs
(the ``cluster`` extra: ``pip install -e '.[cluster]'`` in the project), bubblewrap (``bwrap``) for the sandbox, and ``node`` for
JavaScript bots.  Keep ``--nthreads 1`` (a match is CPU-bound, and bots die with the thread
that started them), and give ``--workers`` the cluster's total number of worker processes, so
the tables are split into enough jobs to keep each of them busy.  ``--cluster local`` starts a
cluster of ``--workers`` processes on this machine instead.

Each worker process claims a CPU of its machine for itself and plays its tables there, bots
included, as a local worker does (:func:`arena.execution.affinity.claim_cpu`); a worker that finds every
CPU taken plays unpinned, so run at most one worker process per CPU.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
import re
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Any

from arena.core import terminal
from arena.core.signals import children_ignore_sigint
from arena.errors import ArenaError, UsageError
from arena.execution import affinity
from arena.execution.events import Event, MatchOver
from arena.execution.executor import Executor
from arena.execution.jobs import Player
from arena.execution.ledger import Ledger
from arena.execution.tasks import PlayConfig, Task
from arena.execution.shipping import Shipper, ShippedJob, bot_cache, unpack

log = logging.getLogger("arena.execution.dask")

# Reruns of a task that raised; a task whose worker died is rerun by the scheduler anyway
# (up to its ``distributed.scheduler.allowed-failures``).
RETRIES = 3
# How often the coordinator looks for finished matches while jobs play (and so how late, at
# most, a game is stored and shown after its match ends).
STREAM_POLL_S = 0.1


def _distributed() -> Any:
    """The ``distributed`` package, or an error that says how to install it."""
    try:
        import distributed
    except ImportError as exc:
        raise ArenaError(
            f"running on a Dask cluster needs dask.distributed ({exc}): install the cluster extra, "
            "pip install -e '.[cluster]' in the arena project folder"
        ) from None
    return distributed


# -- on a worker ----------------------------------------------------------------------------------

_lock = threading.Lock()
_player = Player()  # this worker process's referees, kept across its tasks
_cache: Path | None = None
_cpu: list[int | None] = []  # the CPU this worker process claimed, once decided


def _worker_cpu() -> int | None:
    """The CPU this worker process plays on, claimed on first use (see :func:`affinity.claim_cpu`)."""
    with _lock:
        if not _cpu:
            _cpu.append(affinity.claim_cpu())
        return _cpu[0]


def _set_up_reporting() -> None:
    """How this worker process reports, set once.

    Stopping a run cancels the task that plays here, and the worker then warns once per
    cancelled task (the only warning of that logger, which Dask itself says happens only as a
    worker closes): on a local cluster, a line of noise after every Ctrl-C.  Its errors still
    show.  And a worker process starts afresh, without the CLI's reporting: the referee's fault
    warnings went out through Python's last-resort handler, bot text unescaped, and sandbox
    warnings in Python's two-line form.  Unless this worker's owner set up logging, it reports
    as the CLI does (on a local cluster, to the organiser's terminal)."""
    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)
    if not logging.getLogger().handlers:
        terminal.report_to_stderr("arena")


def _worker_cache() -> Path:
    """This worker process's bot cache, found on its first task (when its reporting is set up too)."""
    global _cache
    with _lock:
        if _cache is None:
            _cache = bot_cache()
            _set_up_reporting()
        return _cache


Events = list[Event]  # one match's events, in order: its games, then its end


def play_remote(job: ShippedJob, play: PlayConfig, stream: str | None = None) -> list[Events]:
    """The Dask task: play one job here, hand each finished match's events to the queue named
    ``stream``, and return the matches it could not hand over.

    The executing thread, and so the referee and the bots it starts, keep to this worker's CPU
    for the task, as a local worker does: unpinned, a table's wake-ups cross CPUs and cost more
    than twice as much."""
    with affinity.pinned(_worker_cpu()):
        return _play_remote(job, play, stream)


def _play_remote(job: ShippedJob, play: PlayConfig, stream: str | None) -> list[Events]:
    tasks = unpack(job, _worker_cache())
    queue = _queue(stream)
    playing: dict[str, Events] = {}  # match id -> its events so far
    unsent: list[Events] = []

    def emit(event: Event) -> None:
        playing.setdefault(event.match_id, []).append(event)
        if isinstance(event, MatchOver):  # played or failed: hand it over whole
            events = playing.pop(event.match_id)
            if queue is None or not _put(queue, events):
                unsent.append(events)

    # Called in the worker's executing thread, which outlives the bots it starts.
    _player.play(tasks, play, emit)
    return unsent + list(playing.values())


def _queue(name: str | None) -> Any:
    """The run's queue of finished matches, or None (no name, or no scheduler to hold it)."""
    if name is None:
        return None
    try:
        return _distributed().Queue(name)
    except Exception as exc:  # noqa: BLE001 - then the job returns its matches instead
        log.warning("no queue %s on the scheduler (%s): this job's matches arrive when it ends", name, exc)
        return None


def _put(queue: Any, events: Events) -> bool:
    """Hand one match's events to the coordinator; False if the scheduler did not take them."""
    try:
        # A queue's items must be msgpack data: the reports go pickled, as a task's result would.
        queue.put(pickle.dumps(events, protocol=pickle.HIGHEST_PROTOCOL), timeout=60)
    except Exception as exc:  # noqa: BLE001 - the job's result carries them instead
        if not _stopping(queue):  # a run being stopped (Ctrl-C) takes no more matches: nothing to say
            log.warning("could not hand a match to the coordinator early (%s): it comes with the job's end", exc)
        return False
    return True


def _stopping(queue: Any) -> bool:
    """Whether this worker, or its connection to the scheduler, is shutting down."""
    client = getattr(queue, "client", None)
    if getattr(client, "status", "running") != "running":
        return True
    try:
        worker = _distributed().get_worker()
    except ValueError:  # not on a worker
        return False
    return getattr(worker.status, "name", "running") != "running"


# -- on the coordinator ---------------------------------------------------------------------------


_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(\[[^\]/\s]+\]|[^\[\]/:\s]+):([0-9]{1,5})")


def check_address(address: str) -> None:
    """Refuse a --cluster value that names no scheduler, before anything is started or stored
    (Dask would fail later with a traceback, or wait its 30 s connect timeout on port 99999)."""
    if address == "local":
        return
    match = _ADDRESS.fullmatch(address)
    if match is None or not 0 < int(match.group(2)) < 65536:
        raise UsageError(f"--cluster must be 'local' or a Dask scheduler's address such as "
                         f"tcp://10.0.0.5:8786, not {address!r}")


@contextmanager
def connect(address: str, workers: int) -> Iterator[Any]:
    """A Dask client for ``address`` (``"local"``: a new cluster of ``workers`` processes here,
    closed on exit).  A tournament holds one for all its rounds."""
    distributed = _distributed()
    # Dask logs its start-up and shut-down at INFO (some 30 lines a run); the tournament's own
    # output says what matters, and Dask's warnings and errors still show.
    logging.getLogger("distributed").setLevel(logging.WARNING)
    cluster = None
    try:
        if address == "local":
            # Ctrl-C reaches the whole process group: the worker processes are started with
            # SIGINT ignored (they inherit it), so the coordinator alone handles it, closing the
            # cluster, instead of every worker printing a traceback.  A Ctrl-C during the start
            # is kept for the coordinator, and raised here, inside the try that closes the cluster.
            # multiprocessing starts its resource tracker with SIGINT blocked and then unblocks
            # it in the calling thread, which would undo the block below: start it first.
            resource_tracker.ensure_running()
            with children_ignore_sigint():
                cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                   dashboard_address=None)
        try:
            client = distributed.Client(cluster if cluster is not None else address)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ArenaError(f"no Dask scheduler at {address}: {exc}") from None
        with client:
            yield client
    finally:
        if cluster is not None:
            # Closing cancels what is still running, which Dask reports as warnings: expected here.
            logging.getLogger("distributed").setLevel(logging.ERROR)
            cluster.close()


class DaskExecutor(Executor):
    """Plays on the Dask cluster at ``address`` (``"local"``: a new cluster of ``workers``
    processes here).  It connects when a run first has something to play, and keeps the client
    for every later run (a Swiss's rounds) until it is closed."""

    def __init__(self, address: str, workers: int, play: PlayConfig) -> None:
        super().__init__(workers, play)
        self.address = address
        self._held = contextlib.ExitStack()
        self._client: Any = None
        self._size = 0  # worker processes of a local cluster

    def client(self, jobs: int) -> Any:
        """The client, connected on first use.  A local cluster has no more worker processes
        than a run has jobs (``--workers 40`` for two matches started 40): it starts with the
        first run's, and grows (up to ``workers``) for a later run with more (a resumed Swiss
        whose first round had one table left to play)."""
        wanted = max(1, min(self.workers, jobs))
        if self._client is None:
            self._client = self._held.enter_context(connect(self.address, wanted))
            self._size = wanted
        elif self.address == "local" and wanted > self._size:
            self._client.cluster.scale(wanted)
            self._size = wanted
        return self._client

    def run(self, jobs: Iterable[list[Task]], on_event: Callable[[Event], None]) -> None:
        planned = list(jobs)  # Dask takes the whole plan at once
        if planned:
            _replay(_distributed(), self.client(len(planned)), planned, self.play, Ledger(on_event))

    def close(self) -> None:
        self._client = None
        self._held.close()


def _replay(distributed: Any, client: Any, jobs: list[list[Task]], play: PlayConfig, ledger: Ledger) -> None:
    """Submit every job, then hand each match's events to the ledger as they arrive, from the
    run's queue while its job plays, or from the job's result."""
    stream = f"arena-{uuid.uuid4().hex}"  # this run's queue: no other run's matches come in
    queue = distributed.Queue(stream, client=client)
    shipper = Shipper()
    futures = {}
    for number, job in enumerate(jobs):
        ledger.give(number, job)
        # pure=False: a unique key per submission, so no two jobs (or runs) share a result.
        future = client.submit(play_remote, shipper.pack(job), play, stream, pure=False, retries=RETRIES)
        futures[future] = number
    log.info("%d jobs submitted to %s", len(futures), client.scheduler.address)

    def take(events: Events) -> None:
        for event in events:
            ledger.forward(event)

    while futures:
        try:
            distributed.wait(list(futures), timeout=STREAM_POLL_S, return_when="FIRST_COMPLETED")
        except TimeoutError:
            pass
        finished = [f for f in futures if f.done()]
        # What those jobs handed over is in the queue before their futures complete: take it first.
        for blob in queue.get(batch=True):
            take(pickle.loads(blob))
        for future in finished:
            number = futures.pop(future)
            try:
                matches = future.result()
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: its matches are missing, the rest go on
                why = f"{exc.__class__.__name__}: {exc}"
                ledger.lost(number, lambda match_id: f"match {match_id} failed on the cluster: {why}")
                continue
            finally:
                future.release()
            for events in matches:
                take(events)
            ledger.done(number)
