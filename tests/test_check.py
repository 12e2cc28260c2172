"""`arena check` with --seed and --matches: more matches and fresh deals to find a bug that shows
up rarely, and a report that names both, so a failing check can be run again exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.referee import session as referee_module
from arena.referee.check import MATCHES, SEED, check_bot
from arena.cli import app
from arena.referee import RefereeConfig, bot_spec
from protocol.messages import Limits

from common import RANDOM, ROOT
NO_SANDBOX = RefereeConfig(sandbox_mode="none")
runner = CliRunner()


def check_json(*args: str) -> dict:
    result = runner.invoke(app, ["check", RANDOM, "--sandbox", "none", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def deals(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list]]:
    """Every game the check plays, as (its seed, its chance outcomes: the deal)."""
    seen: list[tuple[str, list]] = []
    real = referee_module.Session.play_matches

    def spy(self, *args, **kwargs):
        reports = real(self, *args, **kwargs)
        seen.extend((g.record["seed"], g.record["chance"]) for r in reports for g in r.games)
        return reports

    monkeypatch.setattr(referee_module.Session, "play_matches", spy)
    return seen


def test_the_seed_chooses_the_deals_and_the_same_seed_plays_them_again(deals: list[tuple[str, list]]) -> None:
    spec = bot_spec(RANDOM)
    first = check_bot(spec, "reactor", seed="one", config=NO_SANDBOX)
    one = list(deals)
    deals.clear()
    check_bot(spec, "reactor", seed="two", config=NO_SANDBOX)
    two = list(deals)
    deals.clear()
    again = check_bot(spec, "reactor", seed="one", config=NO_SANDBOX)
    assert [s for s, _ in one] == [f"one:{m}:0" for m in range(MATCHES)]
    assert [s for s, _ in two] == [f"two:{m}:0" for m in range(MATCHES)]
    assert all(a != b for (_, a), (_, b) in zip(one, two))  # other seed, other deal in every match
    assert deals == one and again.decisions == first.decisions
    assert (first.seed, first.matches, again.seed) == ("one", MATCHES, "one")


def test_matches_sets_how_many_games_are_played(deals: list[tuple[str, list]]) -> None:
    report = check_bot(bot_spec(RANDOM), "reactor", matches=7, config=NO_SANDBOX)
    assert (report.games, report.matches, report.variant_matches, report.seed) == (7, 7, 0, SEED)
    assert report.matches_played == 7 and "over 7 match(es) (seed" in "\n".join(report.lines())
    assert len(deals) == 7 and len({s for s, _ in deals}) == 7
    with pytest.raises(ValueError, match="at least 1"):
        check_bot(bot_spec(RANDOM), "reactor", matches=0, config=NO_SANDBOX)


def test_the_report_names_the_seed_and_the_matches() -> None:
    default = check_json("--game", "reactor")
    assert (default["seed"], default["matches"], default["games"]) == ("check", 3, 3)
    chosen = check_json("--game", "reactor", "--matches", "5", "--seed", "x7")
    assert (chosen["ok"], chosen["seed"], chosen["matches"], chosen["games"]) == (True, "x7", 5, 5)
    assert chosen["decisions"] != default["decisions"]
    # A game with variants plays each match again with every variant on; the report says so.
    keg = check_json("--game", "powder-keg", "--matches", "1", "--seed", "k")
    assert (keg["seed"], keg["matches"], keg["variant_matches"]) == ("k", 1, 1) and keg["games"] >= 2
    text = runner.invoke(app, ["check", RANDOM, "--game", "reactor", "--sandbox", "none", "--matches", "2",
                               "--seed", "x7"]).output
    assert "  played 2 game(s) over 2 match(es) (seed 'x7'), answered " in text
    keg_text = runner.invoke(app, ["check", RANDOM, "--game", "powder-keg", "--sandbox", "none"]).output
    assert " over 3 match(es) + 3 with every variant on (seed 'check')" in keg_text


def test_check_help_shows_how_to_stress_a_bot() -> None:
    text = " ".join(runner.invoke(app, ["check", "--help"]).output.split())  # as wrapped at any width
    assert "arena check bot.py --game reactor --matches 50 --seed $RANDOM" in text
    assert "--seed <str>" in text and "[default: check]" in text and "[default: 3; 1<=x<=1000]" in text


@pytest.mark.parametrize("value", ["0", "1001", "many"])
def test_a_bad_matches_is_a_one_line_error_with_status_2(value: str) -> None:
    result = subprocess.run([sys.executable, "-m", "arena.cli", "check", RANDOM, "--game", "reactor",
                             "--sandbox", "none", "--matches", value], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Invalid value for '--matches'"), result.stderr


def test_a_fault_is_shown_where_it_happened_with_that_seats_stderr() -> None:
    """Each fault names its seat, game and decision, and the stderr shown is the faulting
    seat's in that game (its traceback), not the last lines of every seat mixed together."""
    spec = bot_spec(str(ROOT / "tests" / "bots" / "zoo_crash_mid.py"))
    report = check_bot(spec, "reactor", matches=2, config=NO_SANDBOX)
    assert not report.ok and report.faults
    first = report.faults[0]
    assert first["kind"] == "crash" and first["game_id"].startswith("check") and first["decision"] is not None
    text = "\n".join(report.lines())
    assert f"seat {first['seat']}, game {first['game_id']}, decision {first['decision']}" in text
    assert f"of seat {first['seat']} in game {first['game_id']}" in text
    assert "deliberate crash on the third decision" in text


def test_a_bot_that_lingers_after_shutdown_is_told_so() -> None:
    """A bot that ignores `shutdown` plays correctly, but every stop of it waits and kills it:
    the check still passes, and says what to fix."""
    lingers = check_bot(bot_spec(str(ROOT / "tests" / "bots" / "zoo_linger.py")), "reactor", matches=1,
                        config=NO_SANDBOX)
    assert lingers.ok and any("did not exit within 0.5 s of `shutdown`" in p for p in lingers.problems)


@pytest.mark.perf  # 0.5 s to exit: a Python bot's teardown can take that long on a loaded machine (issue 16)
def test_a_bot_that_exits_on_shutdown_is_not_told_it_lingers() -> None:
    prompt = check_bot(bot_spec(RANDOM), "reactor", matches=1, config=NO_SANDBOX)
    assert not any("shutdown" in p for p in prompt.problems)


def test_a_bot_that_never_says_hello_is_not_started_for_every_match() -> None:
    """A silent bot costs one start-up wait, not one per game of every match: the check stops
    after the first match and says why."""
    spec = bot_spec(str(ROOT / "tests" / "bots" / "sandbox_sleeper.py"))
    config = RefereeConfig(sandbox_mode="none", limits=Limits(startup_ms=500))
    report = check_bot(spec, "powder-keg", matches=5, config=config)
    assert not report.ok and {f["game_id"].split("-")[0] for f in report.faults} == {"check0"}
    assert {f["kind"] for f in report.faults} == {"startup"}
    assert any("never sent a valid hello" in p for p in report.problems)
    assert report.matches_played == 1 and (report.matches, report.variant_matches) == (5, 5)
    assert "over 1 match(es), of the 5 + 5 with every variant on asked for" in "\n".join(report.lines())


def test_the_readme_example_bot_passes_the_check(tmp_path: Path) -> None:
    """The bot a newcomer copies from README.md ("Writing a bot") plays both games cleanly."""
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"## Writing a bot.*?```python\n(.*?)```", text, re.S)
    assert code is not None
    bot = tmp_path / "my_bot.py"
    bot.write_text(code.group(1))
    for game in ("reactor", "powder-keg"):
        report = check_bot(bot_spec(str(bot)), game, matches=1, config=NO_SANDBOX)
        assert report.ok and report.hello_name == "my-bot", report.lines()
