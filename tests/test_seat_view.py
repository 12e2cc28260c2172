"""`arena replay --seat N` (issue 18): what a seat was shown at each decision, re-derived from the
record, is exactly what its bot was sent; checked against a real bot over a real socket, in both
games."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from arena.cli import app
from arena.errors import UsageError
from arena.games import GameConfig, get_game
from arena.games.seat_view import every_seat_decisions, seat_decisions
from arena.referee import Referee, RefereeConfig, bot_spec
from arena.storage import GameRow, open_store, seat_results
from common import MODE, PY, RANDOM, ZOO
from arena.bots.spec import BotSpec
from protocol.messages import Limits


def witness() -> BotSpec:
    path = str(ZOO / "zoo_witness.py")
    return BotSpec("witness", (PY, path, "{endpoint}"), (path,))


def digest(decisions) -> tuple[int, str]:
    asked = [d for d in decisions if d.asked]
    each = [hashlib.sha256(json.dumps([d.kind, d.observation, d.events, d.legal], sort_keys=True,
                                      separators=(",", ":")).encode()).hexdigest() for d in asked]
    return len(asked), hashlib.sha256("".join(each).encode()).hexdigest()


@pytest.mark.parametrize(("game_name", "points"), [("reactor", 1), ("powder-keg", 2)])
def test_the_seat_view_is_what_the_bot_was_sent(game_name: str, points: int) -> None:
    game = get_game(game_name)
    bots = [bot_spec(RANDOM, "r0"), witness(), bot_spec(RANDOM, "r2")]
    config = RefereeConfig(limits=Limits(decision_ms=5000, game_ms=60_000, startup_ms=20_000), sandbox_mode=MODE)
    with Referee(config) as referee:
        report = referee.play_match(game, GameConfig(players=3, points=points), bots, seed="view")
    assert report.games
    # The bot writes a game's digest when it is told the game is over, which lands in the log of
    # a later game (or, for the last, in what the session keeps at its close): read them all.
    logs = "".join(g.logs.get(1, "") for g in report.games)
    for g in report.games:
        assert g.faults == []
        said = re.search(rf"seen {re.escape(g.game_id)} (\d+) ([0-9a-f]{{64}})", logs)
        assert said, logs
        decisions = seat_decisions(game, g.record, 1)
        assert digest(decisions) == (int(said.group(1)), said.group(2))
        assert all(d.ms is not None for d in decisions if d.asked and not d.cover)
        assert [d.number for d in decisions if not d.cover] == [i for i, e in enumerate(g.record["decisions"])
                                                               if e["seat"] == 1]
        # Powder Keg's Veto polls of a seat without a Queen are asked too (uniform timing).
        assert any(d.cover for d in decisions) == (game_name == "powder-keg"), game_name
        # Every seat's from one replay (the replay viewer's) are each seat's alone.
        assert every_seat_decisions(game, g.record) == {s: seat_decisions(game, g.record, s) for s in range(3)}


def test_replay_seat_through_the_cli(tmp_path: Path, cli) -> None:
    game = get_game("reactor")
    with Referee(RefereeConfig(sandbox_mode=MODE)) as referee:
        report = referee.play_match(game, GameConfig(players=2), [bot_spec(RANDOM, "a"), bot_spec(RANDOM, "b")],
                                    seed="cli-view")
    record = report.games[0].record
    db = tmp_path / "v.db"
    with open_store(str(db)) as store:
        a = store.add_bot_version("a", "reactor", "a.py", b"a", ["python", "{file}"])
        b = store.add_bot_version("b", "reactor", "b.py", b"b", ["python", "{file}"])
        store.add_game(GameRow(id="adhoc/m-g0", game="reactor", seats=[a.id, b.id],
                               winner=record["result"]["winner"], record=record), seat_results(record))
    shown = cli.invoke(app, ["replay", "adhoc/m-g0", "--db", str(db), "--seat", "1"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[0].endswith("seat 1 (b), " + f"{sum(d['seat'] == 1 for d in record['decisions'])} decision(s)")
    assert "observation:" in shown.output and "legal (" in shown.output and "answer:" in shown.output
    data = json.loads(cli.invoke(app, ["replay", "adhoc/m-g0", "--db", str(db), "--seat", "1", "--json"]).output)
    assert data["bot"] == "b" and data["decisions"][0]["observation"]["hand"]
    assert all(d["legal"] for d in data["decisions"] if d["asked"])
    bad = cli.invoke(app, ["replay", "adhoc/m-g0", "--db", str(db), "--seat", "4"])
    assert isinstance(bad.exception, UsageError) and "seats 0-1" in str(bad.exception)
