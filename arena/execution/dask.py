"""Playing a tournament on a Dask cluster: the same contract as ``tournament.execute``.

Each job (the matches of one table) is one Dask task.  It runs on a worker: the referee and
the bots run there.  As each match ends, the task hands its events (``("game", (match_id,
report))``, then ``("match", id)`` or ``("error", (id, text))``) to the coordinator (this
process) through a Dask queue of the run, so that the coordinator stores them, and shows
progress, as the job goes on rather than when it ends; what it could not hand over that way
it returns.  The coordinator stays the only writer to the database.

Exactly once: a match is handed over whole, once it is over, and the coordinator takes each
match id once per run, skipping it when it comes again (``Store.add_game`` is idempotent by
id as well).  When a worker dies mid-job the scheduler runs the job again elsewhere
(``retries`` covers exceptions too) and its matches are played again from the start: the
matches it had finished were stored and are skipped; the one it was playing was never seen
here, so no match mixes games of two attempts.  A Ctrl-C keeps every finished match.

Workers need not share the coordinator's filesystem: each bot's file travels with the job and
is written to a cache directory of the worker's machine (``$TMPDIR/arena-bots-UID``, one file
per content, shared by its workers), then run from there: Python bots under the worker's own
interpreter, ``node`` bots under its ``node``.

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

import atexit
import logging
import os
import pickle
import re
import shutil
import stat
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Any

from arena.bots.package import ShippedBot, ship, unship
from arena.core import terminal
from arena.core.signals import children_ignore_sigint
from arena.errors import ArenaError, UsageError
from arena.execution import affinity
from arena.execution.jobs import Task, play_job
from arena.games import GameConfig, get_game
from arena.referee import BotSpec, Referee, RefereeConfig

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
_referees: dict[RefereeConfig, Referee] = {}
_cache: Path | None = None
_cpu: list[int | None] = []  # the CPU this worker process claimed, once decided


def _bot_cache() -> Path:
    """The machine's bot cache for this user; a private one if that path is not safely ours."""
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


def _worker_state(config: RefereeConfig) -> tuple[Referee, Path]:
    """This worker process's referee (its own ZeroMQ context) and bot cache, made on first use
    (call it pinned, so that the referee's I/O thread keeps to the worker's CPU too)."""
    global _cache
    with _lock:
        if _cache is None:  # this worker process's first task
            _cache = _bot_cache()
            _set_up_reporting()
        if config not in _referees:
            _referees[config] = Referee(config)
        return _referees[config], _cache


Events = list[tuple[str, Any]]  # one match's events, in order: its games, then its end


def play_remote(tasks: list[Task], bots: list[tuple[BotSpec, ShippedBot]], config: RefereeConfig,
                game_name: str, game_config: GameConfig, stream: str | None = None) -> list[Events]:
    """The Dask task: play one job here, hand each finished match's events to the queue named
    ``stream``, and return the matches it could not hand over.

    The executing thread, and so the bots it starts, keep to this worker's CPU for the task, as
    a local worker does: unpinned, a table's wake-ups cross CPUs and cost more than twice as much."""
    mask = affinity.pin(_worker_cpu())
    try:
        return _play_remote(tasks, bots, config, game_name, game_config, stream)
    finally:
        affinity.restore(mask)


def _play_remote(tasks: list[Task], bots: list[tuple[BotSpec, ShippedBot]], config: RefereeConfig,
                 game_name: str, game_config: GameConfig, stream: str | None) -> list[Events]:
    referee, cache = _worker_state(config)
    here = {spec: unship(bot, cache) for spec, bot in bots}
    job = [replace(task, bots=tuple(here[b] for b in task.bots)) for task in tasks]
    queue = _queue(stream)
    playing: dict[str, Events] = {}  # match id -> its events so far
    unsent: list[Events] = []

    def emit(kind: str, payload: Any) -> None:
        if kind == "game":  # the coordinator has the task; send only what it lacks
            task, report = payload
            payload = (task.match_id, report)
        match_id = _match_of(kind, payload)
        playing.setdefault(match_id, []).append((kind, payload))
        if kind != "game":  # the match is over, played or failed: hand it over whole
            events = playing.pop(match_id)
            if queue is None or not _put(queue, events):
                unsent.append(events)

    # Called in the worker's executing thread, which outlives the bots it starts.
    play_job(referee, job, get_game(game_name), game_config, emit)
    return unsent + list(playing.values())


def _match_of(kind: str, payload: Any) -> str:
    """The match id an event belongs to."""
    return payload if kind == "match" else payload[0]


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


def execute_on_cluster(jobs: list[list[Task]], cluster: Any, workers: int, config: RefereeConfig,
                       game_name: str, game_config: GameConfig, on_event: Callable[[str, Any], None]) -> None:
    """Play the jobs on a Dask cluster, calling ``on_event`` here as each job's future completes.

    ``cluster`` is a client from :func:`connect`, or an address (``"local"`` or a scheduler's)
    to connect to for just these jobs."""
    if not jobs:
        return
    if isinstance(cluster, str):
        with connect(cluster, workers) as client:
            _replay(_distributed(), client, jobs, config, game_name, game_config, on_event)
    else:
        _replay(_distributed(), cluster, jobs, config, game_name, game_config, on_event)


def _replay(distributed: Any, client: Any, jobs: list[list[Task]], config: RefereeConfig, game_name: str,
            game_config: GameConfig, on_event: Callable[[str, Any], None]) -> None:
    """Submit every job, then hand each match's events to ``on_event`` as it arrives (each match
    once), from the run's queue while its job plays, or from the job's result."""
    tasks = {task.match_id: task for job in jobs for task in job}
    stream = f"arena-{uuid.uuid4().hex}"  # this run's queue: no other run's matches come in
    queue = distributed.Queue(stream, client=client)
    shipped: dict[BotSpec, ShippedBot] = {}
    futures = {}
    for job in jobs:
        bots = []
        for spec in dict.fromkeys(b for task in job for b in task.bots):
            if spec not in shipped:
                shipped[spec] = ship(spec)
            bots.append((spec, shipped[spec]))
        # pure=False: a unique key per submission, so no two jobs (or runs) share a result.
        future = client.submit(play_remote, job, bots, config, game_name, game_config, stream,
                               pure=False, retries=RETRIES)
        futures[future] = job
    log.info("%d jobs submitted to %s", len(futures), client.scheduler.address)
    taken: set[str] = set()  # matches handed on in this run

    def take(events: Events) -> None:
        """Hand on one match's events, unless that match was handed on already."""
        if not events:
            return
        match_id = _match_of(*events[-1])
        if match_id in taken:
            return  # a rerun of its job played it again; the first time stands
        taken.add(match_id)
        for kind, payload in events:
            if kind == "game":
                payload = (tasks[match_id], payload[1])
            on_event(kind, payload)

    def take_queued() -> None:
        for blob in queue.get(batch=True):
            take(pickle.loads(blob))

    while futures:
        try:
            distributed.wait(list(futures), timeout=STREAM_POLL_S, return_when="FIRST_COMPLETED")
        except TimeoutError:
            pass
        # Matches a job handed over are in the queue before its future completes: take them first.
        take_queued()
        for future in [f for f in futures if f.done()]:
            job = futures.pop(future)
            try:
                matches = future.result()
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: its matches are missing, the rest go on
                for task in job:
                    if task.match_id not in taken:
                        taken.add(task.match_id)
                        on_event("error", (task.match_id, f"match {task.match_id} failed on the cluster: "
                                                          f"{exc.__class__.__name__}: {exc}"))
                continue
            finally:
                future.release()
            for events in matches:
                take(events)
