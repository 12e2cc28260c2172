"""The Dask executor on a real local cluster: same results as the local executor, a killed
worker's job is rerun and every game stored exactly once, and a clear error without Dask."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from arena.execution import affinity  # noqa: E402
from arena.bots.package import ShippedBot, ship, unship  # noqa: E402
from arena.execution import PlayConfig  # noqa: E402
from arena.execution.dask import DaskExecutor  # noqa: E402
from arena.errors import ArenaError  # noqa: E402
from arena.games import GameConfig  # noqa: E402
from arena.referee import BotSpec, RefereeConfig  # noqa: E402
from arena.storage import open_store  # noqa: E402
from arena.tournament import TournamentOutcome, Tournament  # noqa: E402
from arena.tournament.file import load_tournament  # noqa: E402
from common import PATIENCE_S, wait_until  # noqa: E402
from test_tournament import ROOT, random_field, results_of, write  # noqa: E402


def run_tournament(tmp_path: Path, text: str, db_name: str, **kwargs) -> TournamentOutcome:
    db = tmp_path / db_name
    with open_store(str(db)) as store:
        return Tournament(load_tournament(write(tmp_path, text, f"{db_name}.toml")), store).run(**kwargs)


def stored_games(db: Path) -> int:
    try:
        # A reader waits out a writer (up to 5 s) rather than see 0 games in a database that has some.
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet, or busy
        return 0


def test_local_cluster_stores_the_same_results_as_the_local_executor(shared_deal_key: bytes, tmp_path: Path) -> None:
    text = random_field(4, games=2)
    alone = run_tournament(tmp_path, text, "alone.db", workers=1)
    spread = run_tournament(tmp_path, text, "spread.db", workers=2, cluster="local")
    assert alone.errors == spread.errors == []
    assert spread.played == alone.played == 24
    assert results_of(tmp_path / "spread.db") == results_of(tmp_path / "alone.db")


def test_killed_worker_is_replaced_and_each_game_is_stored_once(shared_deal_key: bytes, tmp_path: Path) -> None:
    # 4 tables, so 4 jobs of 3 rotations x 12 games for 2 workers: each takes a few seconds, so
    # the first jobs are stored while the last ones are being played, and one of those is killed.
    text = random_field(4, games=12, name="kill")
    assert run_tournament(tmp_path, text, "whole.db", workers=2).errors == []
    expected = results_of(tmp_path / "whole.db")
    assert len(expected) == 144

    db = tmp_path / "cut.db"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        outcome: list[TournamentOutcome] = []
        runner = threading.Thread(target=lambda: outcome.append(
            run_tournament(tmp_path, text, "cut.db", workers=2, cluster=cluster.scheduler_address)), daemon=True)
        runner.start()
        pids = client.run(os.getpid)
        # Kill a worker as soon as it is seen executing a job that started after another one
        # ended, once games are stored: the job has just begun (each takes seconds), so the kill
        # lands mid-match.  Judged by the order things are seen in, not by a clock: "first seen
        # under 0.3 s ago" missed every job on a loaded machine, where one poll took longer, or
        # the job started before its predecessor's games were stored (issue 16).
        seen: set[str] = set()
        executing_before: set[str] = set()
        one_ended = False
        after_an_end: set[str] = set()  # jobs first seen executing once another job had ended

        def victim() -> str | None:
            nonlocal executing_before, one_ended
            executing = client.run(lambda dask_worker: [ts.key for ts in dask_worker.state.executing])
            now = {key for keys in executing.values() for key in keys}
            one_ended = one_ended or bool(executing_before - now)
            if one_ended:
                after_an_end.update(now - seen)
            seen.update(now)
            executing_before = now
            if not stored_games(db):
                return None
            return next((address for address, keys in executing.items() if after_an_end & set(keys)), None)

        # At most: a job's rotations start its bots afresh (one process per rotation of a deal),
        # so on a loaded machine the first jobs take a while to end.
        address = wait_until(victim, "a job to start after the first games were stored", timeout=2 * PATIENCE_S)
        stored_at_kill = stored_games(db)
        os.kill(pids[address], signal.SIGKILL)
        assert runner.is_alive() and 0 < stored_at_kill < len(expected)
        runner.join(timeout=PATIENCE_S)
        assert not runner.is_alive()
        assert pids[address] not in client.run(os.getpid).values()  # the nanny started a new one
        # The victim's job went back to the scheduler and was started again on the other worker.
        starts: dict[str, int] = {}
        for key, start, finish, *_ in cluster.scheduler.transition_log:
            if finish == "processing" and start != "processing":  # from waiting, or queued
                starts[key] = starts.get(key, 0) + 1
        assert max(starts.values()) >= 2, "the killed worker's job was not played again"

    assert outcome[0].errors == [] and outcome[0].played == len(expected)
    with sqlite3.connect(db) as conn:
        counts = conn.execute("SELECT id, COUNT(*) FROM games GROUP BY id").fetchall()
    assert len(counts) == len(expected) and {n for _, n in counts} == {1}
    assert results_of(db) == expected


def test_finished_matches_are_stored_while_their_job_plays(shared_deal_key: bytes, tmp_path: Path) -> None:
    """A job holds many matches (up to 64); its games were stored only when all of them were
    over, so progress stood still and a Ctrl-C lost every finished match of the jobs in flight.
    Each match now reaches the coordinator as it ends, through the run's queue."""
    text = random_field(3, games=8, name="stream")  # 24 matches of one game; one worker: 2 jobs of 12
    db = tmp_path / "stream.db"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        outcome: list[TournamentOutcome] = []
        runner = threading.Thread(target=lambda: outcome.append(
            run_tournament(tmp_path, text, "stream.db", workers=1, cluster=cluster.scheduler_address)), daemon=True)
        runner.start()
        wait_until(lambda: stored_games(db) or not runner.is_alive(), "a game stored", every=0.01)
        finished_jobs = sum(1 for _, _, finish, *_ in cluster.scheduler.transition_log if finish == "memory")
        stored = stored_games(db)
        runner.join(timeout=PATIENCE_S)
    assert outcome and outcome[0].errors == [] and outcome[0].played == 24
    assert 0 < stored < 12 and finished_jobs == 0, (stored, finished_jobs)
    assert results_of(db) == results_of_local(tmp_path, text)


def test_matches_the_queue_did_not_take_come_with_the_jobs_result(shared_deal_key: bytes, tmp_path: Path, monkeypatch) -> None:
    """When the scheduler's queue refuses a match, the job returns it instead: the coordinator
    stores the same games, each once (an in-process cluster, so the refusal can be arranged)."""
    import arena.execution.dask

    refused: list[str] = []

    def refuse(queue, events) -> bool:
        refused.append(events[-1].match_id)
        return False

    monkeypatch.setattr(arena.execution.dask, "_put", refuse)
    text = random_field(3, games=2, name="fallback")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        outcome = run_tournament(tmp_path, text, "fallback.db", workers=1, cluster=cluster.scheduler_address)
    assert outcome.errors == [] and outcome.played == 6 and len(refused) == 6
    assert results_of(tmp_path / "fallback.db") == results_of_local(tmp_path, text)


def results_of_local(tmp_path: Path, text: str) -> list:
    run_tournament(tmp_path, text, "local.db", workers=1)
    return results_of(tmp_path / "local.db")


def test_missing_dask_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    with pytest.raises(ArenaError, match=r"install the cluster extra, pip install -e '\.\[cluster\]'"):
        DaskExecutor("local", 1, PlayConfig(RefereeConfig(), "reactor", GameConfig(players=3))).run([[]], print)


def test_shipped_bot_runs_from_the_worker_cache(tmp_path: Path) -> None:
    source = tmp_path / "coordinator" / "bot.py"
    source.parent.mkdir()
    source.write_text("print('hi')\n")
    spec = BotSpec("b", (os.path.realpath(sys.executable), str(source)), (str(source),),
                   (("NODE_PATH", str(tmp_path / "nowhere")),))
    packed = ship(spec)
    assert packed == ShippedBot("b", "bot.py", b"print('hi')\n", ("python", "{file}"), spec.env)
    here = unship(packed, tmp_path / "worker")
    assert Path(here.command[1]).read_bytes() == source.read_bytes()
    assert Path(here.command[1]).is_relative_to(tmp_path / "worker")
    assert here.expose == (here.command[1],) and here.env == ()  # that node_modules is not here
    assert unship(packed, tmp_path / "worker") == here


def test_a_swiss_tournament_holds_one_local_cluster_for_all_its_rounds(tmp_path: Path, monkeypatch) -> None:
    import arena.execution.dask

    opened: list[str] = []
    real = arena.execution.dask.connect

    def counting(address: str, workers: int):
        opened.append(address)
        return real(address, workers)

    monkeypatch.setattr(arena.execution.dask, "connect", counting)
    text = random_field(5, name="swiss", extra='format = "swiss"\nrounds = 3\n')
    outcome = run_tournament(tmp_path, text, "swiss.db", workers=2, cluster="local")
    assert outcome.errors == [] and outcome.played > 0
    assert opened == ["local"]
    again = run_tournament(tmp_path, text, "swiss.db", workers=2, cluster="local")
    assert again.played == 0 and opened == ["local"]  # nothing left to play: no cluster started


def test_a_local_cluster_starts_no_more_workers_than_there_are_jobs(tmp_path: Path, monkeypatch) -> None:
    """Issue 15: ``--workers 40`` for two matches started 40 worker processes."""
    import arena.execution.dask

    started: list[int] = []
    real = arena.execution.dask.connect

    @contextlib.contextmanager
    def counting(address: str, workers: int):
        with real(address, workers) as client:
            started.append(len(client.scheduler_info()["workers"]))
            yield client

    jobs: list[int] = []
    real_run = DaskExecutor.run

    def run(self, planned, on_event):
        planned = list(planned)
        jobs.append(len(planned))
        return real_run(self, planned, on_event)

    monkeypatch.setattr(arena.execution.dask, "connect", counting)
    monkeypatch.setattr(DaskExecutor, "run", run)
    outcome = run_tournament(tmp_path, random_field(2, seats=2), "few.db", workers=12, cluster="local")
    assert outcome.errors == [] and outcome.played > 0
    assert jobs and jobs[0] < 12
    assert started == [jobs[0]]


def test_a_local_cluster_grows_for_a_later_run_with_more_jobs() -> None:
    """Sized by the first run's jobs, a local cluster would keep one worker for every later round
    of a resumed Swiss whose first round had one table left (found in review)."""
    executor = DaskExecutor("local", 3, PlayConfig(RefereeConfig(sandbox_mode="none"), "reactor", GameConfig(players=2)))
    try:
        client = executor.client(1)
        assert len(client.scheduler_info()["workers"]) == 1
        assert executor.client(5) is client
        client.wait_for_workers(3, timeout=120)
        assert len(client.scheduler_info()["workers"]) == 3  # up to --workers, never more
        executor.client(2)
        assert len(client.scheduler_info()["workers"]) == 3  # never shrunk under a run
    finally:
        executor.close()


@pytest.mark.skipif(len(affinity.available_cpus()) < 2, reason="needs two CPUs")
def test_a_cluster_worker_keeps_its_tables_on_the_cpu_it_claimed(tmp_path: Path, monkeypatch) -> None:
    """As a local worker does, each Dask worker plays on one CPU of its own (claimed through a
    lock file, since no one process starts the workers): its bots inherit that one CPU."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the workers' claims and bot cache go here
    reporter = ROOT / "tests" / "bots" / "affinity_reporter.py"
    bots = "".join(f'[[bots]]\nname = "a{i}"\npath = "{reporter}"\n' for i in range(4))
    text = f'name = "pin"\ngame = "reactor"\nseats = 2\ngames = 1\nseed = 3\n[sandbox]\nmode = "none"\n{bots}'
    outcome = run_tournament(tmp_path, text, "pin.db", workers=2, cluster="local")
    assert outcome.errors == [] and outcome.played == 12
    with open_store(str(tmp_path / "pin.db")) as store:
        for game in store.games(tournament="pin", limit=100):
            for log in store.logs(game.id).values():
                masks = {line for line in log.splitlines() if line.startswith("cpus=")}
                assert len(masks) == 1 and len(json.loads(masks.pop()[len("cpus="):])) == 1, log
    assert sorted(p.name for p in (tmp_path / f"arena-cpus-{os.getuid()}").iterdir()) == \
        [f"cpu-{c}.lock" for c in affinity.available_cpus()[:2]]  # two workers, two claims


def test_a_local_cluster_is_quiet_and_leaves_ctrl_c_to_the_coordinator(tmp_path: Path) -> None:
    """`arena run --cluster local -q` prints no Dask chatter (it printed some 30 INFO lines), and
    its worker processes start with SIGINT ignored: a Ctrl-C to the terminal's process group is
    the coordinator's to handle (it closes the cluster), not a traceback from every worker."""
    import subprocess

    from arena.core.signals import sigint

    spec = write(tmp_path, random_field(3, games=2), "q.toml")
    run = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(spec), "--db", str(tmp_path / "q.db"),
                          "--cluster", "local", "--workers", "2", "-q"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "distributed" not in run.stderr, run.stderr
    probe = [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"]
    before = signal.getsignal(signal.SIGINT)
    with sigint(signal.SIG_IGN):
        inside = subprocess.run(probe, capture_output=True, text=True).stdout
    assert inside.strip() == "True"
    assert signal.getsignal(signal.SIGINT) is before  # restored


def test_ctrl_c_while_a_local_cluster_starts_is_not_lost(tmp_path: Path) -> None:
    """The coordinator ignored SIGINT while the local cluster started (so that its workers would
    inherit the ignore), and a Ctrl-C in that second was lost: the tournament played on to the
    end.  SIGINT is now also blocked, so it waits and lands once the cluster is up; and the
    cluster is closed, since it lands inside connect()."""
    import subprocess

    script = tmp_path / "early.py"
    script.write_text(
        "import os, signal, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "import distributed\n"
        "from arena.execution import dask as cluster\n"
        "start = distributed.LocalCluster.__init__\n"
        "def starting(self, *args, **kwargs):  # a Ctrl-C just as the cluster starts, however busy the machine\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    start(self, *args, **kwargs)\n"
        "distributed.LocalCluster.__init__ = starting\n"
        "if __name__ == '__main__':\n"
        "    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's process starts\n"
        "    try:\n"
        "        with cluster.connect('local', 2):\n"
        "            print('not interrupted')\n"
        "    except KeyboardInterrupt:\n"
        "        print('KeyboardInterrupt')\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "KeyboardInterrupt", done.stderr[-2000:]
    probe = [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"]
    from arena.core.signals import children_ignore_sigint

    before = signal.getsignal(signal.SIGINT)
    with children_ignore_sigint():
        inside = subprocess.run(probe, capture_output=True, text=True).stdout
    assert inside.strip() == "True"  # what the cluster's workers start with
    assert signal.getsignal(signal.SIGINT) is before
