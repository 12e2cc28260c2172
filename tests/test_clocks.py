"""The referee's clocks, with real bots in the real sandbox: a decision is charged the CPU time the
bot used, within a wall-clock limit that runs from the moment the request was sent.

Organisers saw ``reactor_strong`` forfeit 10 of 108 games on wall-clock timeouts that other load
on the machine caused; and a bot offered several games at once could answer a burst one frame at
a time, each just under the limit, and have an answer accepted 8.8 s after its request with a
1 s limit.  These tests load a CPU on purpose (busy processes of their own, on the CPU the table
runs on), so they hold however busy the machine is besides.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.games import GameConfig, get_game
from arena.games.record import replay
from arena.referee import BotSpec, MatchPlan, Referee, RefereeConfig, bot_spec
from arena.tournament.file import comparable, load_tournament
from arena.tournament.runner import referee_config
from common import MODE, PY, RANDOM, ZOO, bot_processes, tagged, zoo
from protocol.messages import DEFAULT_WALL_FACTOR, Limits


def play(first: BotSpec, limits: Limits, *, players: int = 2, matches: int = 1) -> list:
    game = get_game("reactor")
    tag = f"tag-{uuid.uuid4().hex}"
    bots = [tagged(first, tag)] + [tagged(bot_spec(RANDOM, f"random{i}"), tag) for i in range(1, players)]
    plans = [MatchPlan(f"clock:{m}", f"m{m}") for m in range(matches)]
    with Referee(RefereeConfig(limits=limits, sandbox_mode=MODE)) as referee, referee.session() as session:
        reports = session.play_matches(game, GameConfig(players=players), bots, plans)
    assert bot_processes(tag) == [], "a bot process survived the match"
    for report in reports:
        for g in report.games:
            replay(game, g.record)
    return [g for r in reports for g in r.games]


@contextmanager
def crowded_cpu(hogs: int) -> Iterator[None]:
    """This process (and so the referee and the bots it starts) on one CPU, with ``hogs`` busy
    processes of the test's own on it too: a bot there gets a fraction of the CPU's time."""
    before = os.sched_getaffinity(0)
    cpu = max(before)
    busy = [subprocess.Popen([sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"])
            for _ in range(hogs)]
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
        for proc in busy:
            proc.kill()
            proc.wait()


def test_a_table_next_to_cpu_hogs_is_not_faulted_for_time_it_did_not_get() -> None:
    """The thinker uses 60 ms of CPU time at each of its first decisions, of the 150 ms it may:
    sharing its CPU with three busy processes, that takes it four times as long on the wall
    clock, well past 150 ms.  It is charged its CPU time, so it is not faulted."""
    limits = Limits(decision_ms=150, game_ms=20_000, startup_ms=30_000, wall_factor=40)
    with crowded_cpu(hogs=3):
        games = play(zoo("think", "60", "4"), limits)
    assert [f.message for g in games for f in g.faults] == []
    charged = [d["ms"] for g in games for d in g.record["decisions"] if d["seat"] == 0 and "ms" in d][:4]
    assert len(charged) == 4 and all(ms >= 60 for ms in charged), charged  # its CPU time is what counts


def test_a_bot_that_thinks_past_its_allowance_still_times_out_next_to_cpu_hogs() -> None:
    """CPU time is charged in full: a bot that keeps thinking past its allowance times out on it,
    long before its (generous) wall-clock limit."""
    limits = Limits(decision_ms=150, game_ms=20_000, startup_ms=30_000, wall_factor=100)
    with crowded_cpu(hogs=2):
        games = play(zoo("late"), limits)
    [fault] = games[0].faults
    assert (fault.seat, fault.kind) == (0, "timeout")
    assert "ms of CPU time on a decision without answering in time (it may use 150 ms)" in fault.message


def test_a_burst_answered_one_frame_at_a_time_keeps_each_requests_wall_clock_limit() -> None:
    """A bot offered 8 games at once and answers the burst of requests one at a time, each after
    900 ms (no CPU: it sleeps).  Each request's clock used to start at the previous answer, so
    every answer was in time, the last of a burst 8 s after its request.  Now each request must
    be answered within its wall-clock limit (2 s here) from when it was sent: the third answer
    of a burst comes too late."""
    path = str(ZOO / "zoo_concurrent.py")
    slow = BotSpec("slow", (PY, path, "{endpoint}", "slow:900", "none"), (path,))
    limits = Limits(decision_ms=1000, game_ms=20_000, startup_ms=30_000, wall_factor=2)
    games = play(slow, limits, matches=8)
    faults = [f for g in games for f in g.faults if f.seat == 0 and not f.collateral]
    assert faults, "every answer of the bursts was accepted"
    assert faults[0].kind == "timeout"
    late = [int(f.message.split()[3]) for f in faults if f.message.startswith("the bot answered ")]
    said_nothing = [f for f in faults if f.message.startswith("the bot said nothing within the 2000 ms")]
    assert all(ms > 2000 for ms in late) and len(late) + len(said_nothing) == len(faults), [f.message for f in faults]
    assert all(f.message.endswith("over the 2000 ms of wall-clock time a decision may take") for f in faults
               if f.message.startswith("the bot answered "))


def test_a_tournament_file_may_set_the_wall_factor_and_one_without_it_resumes_as_before(tmp_path: Path) -> None:
    """``[time] wall_factor`` reaches the referee; a file without it keeps the stored form it had
    before the key existed (resuming compares it), and gets the default."""
    bots = "".join(f'[[bots]]\nname = "r{i}"\npath = "{RANDOM}"\n' for i in range(2))
    head = 'name = "t"\ngame = "reactor"\nseats = 2\nseed = 1\n'
    path = tmp_path / "t.toml"
    path.write_text(head + "[time]\ndecision = 500\nwall_factor = 3\n" + bots)
    spec = load_tournament(path)
    assert referee_config(spec).limits == Limits(decision_ms=500, game_ms=60_000, startup_ms=10_000, wall_factor=3)
    path.write_text(head + "[time]\ndecision = 500\n" + bots)
    spec = load_tournament(path)
    assert spec.to_json()["time"] == {"decision": 500, "game": 60_000, "startup": 10_000}
    assert referee_config(spec).limits.wall_factor == DEFAULT_WALL_FACTOR
    # A file that writes the default out resumes a tournament stored without the key.
    game = get_game("reactor")
    stored, given = spec.to_json()["time"], {**spec.to_json()["time"], "wall_factor": DEFAULT_WALL_FACTOR}
    assert comparable("time", stored, game, 2) == comparable("time", given, game, 2)
    assert comparable("time", stored, game, 2) != comparable("time", {**given, "wall_factor": 3}, game, 2)
    path.write_text(head + "[time]\nwall_factor = 0\n" + bots)
    with pytest.raises(ConfigError, match="time.wall_factor.*from 1 to 100"):
        load_tournament(path)


def test_a_clock_whose_group_can_not_be_read_goes_on_from_its_last_reading(tmp_path: Path) -> None:
    """A bot's CPU time comes from its cgroup's cpuacct.usage; if that can not be read any more,
    the clock counts its processes instead, from the group's last reading on: a decision under way
    is charged neither a jump nor a negative time (found in review: the two scales were mixed)."""
    import types

    from arena.referee.clock import BotClock

    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        clock = BotClock(types.SimpleNamespace(group=None, pid=spinner.pid))
        usage = tmp_path / "cpuacct.usage"
        usage.write_text("5000000000\n")  # the group's reading: 5 s of CPU so far
        clock._usage = os.open(usage, os.O_RDONLY)
        assert clock.read() == 5_000_000_000
        usage.write_text("")  # the group's file gives nothing any more: the next read fails
        after = clock.read()
        assert 5_000_000_000 <= after < 5_000_000_000 + 1_000_000_000
        later = clock.read()
        assert later >= after
    finally:
        spinner.kill()
        spinner.wait()
