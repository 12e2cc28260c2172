"""The execution layer's shared parts: the ledger that passes every match's events exactly once,
jobs shipped to another machine, the choice of executor, and a third executor made of them."""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from arena.execution import Event, Executor, GameFinished, MatchFailed, MatchFinished, PlayConfig, executor_for
from arena.execution.dask import DaskExecutor
from arena.execution.jobs import Player
from arena.execution.tasks import Task
from arena.execution.ledger import Ledger
from arena.execution.local import LocalExecutor
from arena.execution.shipping import Shipper, unpack
from arena.games import GameConfig
from arena.referee import BotSpec, GameReport, RefereeConfig
from arena.tournament.formats import Pairing

TWO = (BotSpec("a", ("x",)), BotSpec("b", ("y",)))


def task(match: str, bots: tuple[BotSpec, ...] = TWO) -> Task:
    pairing = Pairing(id=match, round=1, table=1, seats=tuple(b.name for b in bots), deal="d", rotation=0)
    return Task(pairing, match, "seed", bots)


def report(game_id: str) -> GameReport:
    return GameReport(0, game_id, {}, [], {}, "", "", 0)


def test_a_match_is_passed_on_once_and_a_second_playing_of_it_is_dropped() -> None:
    seen: list[object] = []
    ledger = Ledger(seen.append)
    job = [task("t/m0"), task("t/m1")]
    ledger.give(0, job)
    first = [GameFinished(job[0], report("t/m0-g0")), MatchFinished("t/m0")]
    for event in first:
        ledger.forward(event)
    for event in first:  # the job played again (its worker died after m0): the first time stands
        ledger.forward(event)
    ledger.forward(MatchFinished("t/other"))  # not a match it gave out
    assert seen == first and len(ledger) == 1


def test_a_lost_job_fails_its_open_matches_and_only_those() -> None:
    seen: list[object] = []
    ledger = Ledger(seen.append)
    job = [task("t/m0"), task("t/m1"), task("t/m2")]
    ledger.give("j", job)
    ledger.forward(MatchFinished("t/m0"))
    ledger.forward(GameFinished(job[1], report("t/m1-g0")))  # m1 was being played
    ledger.lost("j", lambda match_id: f"match {match_id} failed: lost")
    assert seen[2:] == [MatchFailed("t/m1", "match t/m1 failed: lost"), MatchFailed("t/m2", "match t/m2 failed: lost")]
    assert len(ledger) == 0
    ledger.forward(MatchFinished("t/m1"))  # a late copy of a match reported failed
    assert len(seen) == 4


def test_a_job_that_ends_leaves_no_match_open() -> None:
    seen: list[object] = []
    ledger = Ledger(seen.append)
    ledger.give(1, [task("t/m0"), task("t/m1")])
    ledger.forward(MatchFinished("t/m0"))
    ledger.done(1)
    assert seen == [MatchFinished("t/m0"),
                    MatchFailed("t/m1", "match t/m1 failed: its job ended without finishing it")]


def test_a_game_from_another_process_names_the_task_given_out_here() -> None:
    seen: list[GameFinished] = []
    ledger = Ledger(seen.append)  # type: ignore[arg-type]
    mine = task("t/m0")
    ledger.give(0, [mine])
    theirs = task("t/m0", (BotSpec("a", ("/worker/a",)), BotSpec("b", ("/worker/b",))))
    ledger.forward(GameFinished(theirs, report("t/m0-g0")))
    assert seen[0].task is mine and seen[0].report.game_id == "t/m0-g0"


def test_a_shipped_job_runs_its_bots_from_the_cache_of_the_machine_that_plays_it(tmp_path: Path) -> None:
    source = tmp_path / "here" / "bot.py"
    source.parent.mkdir()
    source.write_text("print('hi')\n")
    b = BotSpec("b", (os.path.realpath(sys.executable), str(source)), (str(source),))
    c = BotSpec("c", (os.path.realpath(sys.executable), str(source)), (str(source),))
    shipper = Shipper()
    first = shipper.pack([task("t/m0", (b, c)), task("t/m1", (c, b))])
    second = shipper.pack([task("t/m2", (b, c))])
    assert [spec for spec, _ in first.bots] == [b, c]
    assert first.bots[0][1] is second.bots[0][1]  # each bot's file read once
    there = unpack(first, tmp_path / "there")
    assert [t.match_id for t in there] == ["t/m0", "t/m1"] and [bot.name for bot in there[1].bots] == ["c", "b"]
    for bot in (bot for t in there for bot in t.bots):
        assert Path(bot.command[1]).is_relative_to(tmp_path / "there")
        assert Path(bot.command[1]).read_bytes() == source.read_bytes()


def test_the_cluster_option_picks_the_executor() -> None:
    play = PlayConfig(RefereeConfig(), "reactor", GameConfig(players=2))
    local = executor_for(3, None, play)
    assert isinstance(local, LocalExecutor) and local.workers == 3 and local.play == play
    cluster = executor_for(2, "tcp://10.0.0.5:8786", play)
    assert isinstance(cluster, DaskExecutor) and cluster.address == "tcp://10.0.0.5:8786" and cluster.workers == 2
    with cluster:  # nothing to play: nothing connected, nothing to close
        cluster.run([], print)


class InThread(Executor):
    """A backend made for the test of the shared parts alone: the jobs played by a Player on a
    thread of this process, the events brought back through a queue and passed on by a Ledger."""

    def run(self, jobs: Iterable[list[Task]], on_event: Callable[[Event], None]) -> None:
        ledger = Ledger(on_event)
        given = list(enumerate(jobs))
        for number, job in given:
            ledger.give(number, job)
        inbox: queue.SimpleQueue[Event | int | None] = queue.SimpleQueue()

        def work() -> None:  # bots die with the thread that starts them: it lives for the whole run
            with Player() as player:
                for number, job in given:
                    player.play(job, self.play, inbox.put)
                    inbox.put(number)
            inbox.put(None)

        threading.Thread(target=work, daemon=True).start()
        while (item := inbox.get()) is not None:
            if isinstance(item, int):
                ledger.done(item)
            else:
                ledger.forward(item)


def test_a_new_executor_made_of_the_shared_parts_plays_a_tournament(shared_deal_key: bytes, tmp_path: Path, monkeypatch) -> None:
    """The runner knows executors by their interface only: a third one (picked where --cluster
    picks) stores the same games as the local executor."""
    import arena.tournament.runner
    from arena.storage import open_store
    from arena.tournament import Tournament
    from arena.tournament.file import load_tournament
    from test_tournament import random_field, results_of, write

    text = random_field(3, games=2)
    for name, executor in (("local", None), ("thread", InThread)):
        if executor is not None:
            monkeypatch.setattr(arena.tournament.runner, "executor_for",
                                lambda workers, cluster, play, executor=executor: executor(workers, play))
        db = tmp_path / f"{name}.db"
        with open_store(str(db)) as store:
            outcome = Tournament(load_tournament(write(tmp_path, text, f"{name}.toml")), store).run(workers=1)
        assert outcome.errors == [] and outcome.played == 6
    assert results_of(tmp_path / "thread.db") == results_of(tmp_path / "local.db")
