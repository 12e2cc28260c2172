"""Nothing a bot sends can crash the referee: a slice of benchmarks/fuzz_referee.py, and a real
match against a bot that sends mutated messages (tests/bots/fuzz_bot.py).

The full fuzz (``python benchmarks/fuzz_referee.py --messages 100000``) runs the same code on
many more messages; this slice is small enough for every test run.
"""

from __future__ import annotations

import sys
import uuid

import pytest

from arena.games import GameConfig, get_game
from arena.games.record import replay
from arena.referee import BotSpec, MatchPlan, Referee, RefereeConfig, bot_spec
from common import MODE, PY, RANDOM, ROOT, ZOO, bot_processes, tagged
from protocol.messages import Limits

sys.path.insert(0, str(ROOT / "benchmarks"))
import fuzz_referee  # noqa: E402


def test_a_slice_of_the_fuzz_finds_nothing() -> None:
    report = fuzz_referee.fuzz(2500, seed=0)
    assert report.problems == []
    # The slice reaches every way a frame can go wrong, and some answers get through.
    assert {"accepted", "malformed", "schema", "illegal", "stale", "multipart", "too_large"} <= set(report.outcomes)
    assert report.longest_fault <= 400


@pytest.mark.parametrize("hello", [False, True], ids=["answers", "hello too"])
def test_a_fuzzing_bot_costs_only_its_own_games(hello: bool) -> None:
    """A bot that mutates half its answers (and its hello) in a real match: the referee goes on,
    each fault is stored with a small plain message, the other bots finish every game, every
    record replays, and no process is left."""
    game = get_game("reactor")
    tag = f"tag-{uuid.uuid4().hex}"
    path = str(ZOO / "fuzz_bot.py")
    fuzz = BotSpec("fuzz", (PY, path, "{endpoint}", "7", "0.5", *(["hello"] if hello else [])), (path,))
    bots = [tagged(fuzz, tag)] + [tagged(bot_spec(RANDOM, f"random{i}"), tag) for i in (1, 2)]
    limits = Limits(decision_ms=1000, game_ms=20_000, startup_ms=8_000, wall_factor=3)
    config = RefereeConfig(limits=limits, sandbox_mode=MODE, faults_to_disqualify=100)
    plans = [MatchPlan(f"fuzz:{m}", f"m{m}") for m in range(6)]
    with Referee(config) as referee, referee.session() as session:
        reports = session.play_matches(game, GameConfig(players=3), bots, plans)
    assert bot_processes(tag) == []
    games = [g for r in reports for g in r.games]
    assert len(games) == 6
    faults = [f for g in games for f in g.faults]
    assert faults and {f.seat for f in faults} == {0}
    assert all(len(f.message.encode()) <= 600 and f.message.isprintable() for f in faults)
    for g in games:
        replay(game, g.record)
        places = g.record["result"]["places"]
        assert sorted(places) == [1, 2, 3] or sorted(places) == [1, 2, 2]
        if g.faults:
            assert places[0] == 3 and g.record["result"]["forfeits"] == [0]  # the others played it out
