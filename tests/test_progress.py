"""The progress line: games and matches done, games/s, time left from this run's pace; it fits
the terminal, warnings print above it, and a run prints its standings every N games."""

from __future__ import annotations

import io
import logging
import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.progress import ProgressBar, line, standings_lines
from arena.core.terminal import StderrHandler, SafeFormatter
from arena.ratings.stop import StopRule
from arena.ratings import GameOutcome
from arena.ratings.confidence import ranking_confidence
from arena.tournament import Progress

from common import BOT_DIR, RANDOM


class Terminal(io.StringIO):
    """A stream that says it is a terminal, and what a terminal would show: each carriage
    return or erase-line starts the line afresh."""

    def isatty(self) -> bool:
        return True

    def screen(self) -> list[str]:
        lines = []
        for raw in self.getvalue().split("\n"):
            lines.append(re.split(r"\r(?:\x1b\[K)?", raw)[-1])
        return lines


def test_progress_line_counts_games_and_matches_and_estimates_from_played_matches() -> None:
    p = Progress(matches_total=10, matches_done=6, matches_played=2, games_done=2, games_skipped=4,
                 started=time.monotonic() - 20)
    text = ProgressBar(stream=io.StringIO(), width=200).text(p)
    assert text.startswith("games 6 · matches 6/10 · 4 already stored")
    assert "0:00:40 left" in text  # 10 s per played match, 4 matches to go
    assert "0.1 games/s" in text


@pytest.mark.parametrize("width", [20, 40, 60, 80, 200])
def test_the_line_never_outgrows_the_terminal_and_keeps_the_counts_longest(width: int) -> None:
    p = Progress(matches_total=120, matches_done=30, matches_played=30, games_done=55, games_skipped=12,
                 started=time.monotonic() - 30)
    text = line(p, width)
    assert len(text) <= width
    if width >= 40:
        assert text.startswith("games 67 · matches 30/120")  # what is dropped first is the rest
    if width == 200:
        assert "…" not in text and "left" in text and "already stored" in text


def test_under_a_stop_rule_the_line_shows_the_bound_and_the_open_pairs() -> None:
    games = [GameOutcome(("a", "b"), (1, 2), f"t/m{i}-g0") for i in range(3)]
    decision = StopRule(max_games=100).decide(games)
    p = Progress(games_done=3, games_max=100, blocks_done=1, matches_done=3, decision=decision)
    text = line(p, 200)
    assert text.startswith("games 3/≤100 · matches 3 · block 2") and "open: a>b" in text
    assert len(line(p, 30)) <= 30 and line(p, 30).startswith("games 3/≤100")


def test_progress_prints_lines_when_not_a_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar(stream=out)
    bar.update(Progress(matches_total=2, matches_done=2, matches_played=2, games_done=2))
    bar.close()
    assert out.getvalue().count("\n") == 1 and "matches 2/2" in out.getvalue()


def test_a_run_with_nothing_left_says_so() -> None:
    """All stored already (a rerun): nothing is left, which is no reason for a '?'."""
    p = Progress(matches_total=3, matches_done=3, matches_played=0, games_skipped=3)
    assert ProgressBar(stream=io.StringIO(), width=200).text(p).endswith("0:00:00 left")


def test_a_warning_gets_a_line_of_its_own_above_the_progress_line(monkeypatch) -> None:
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    handler = StderrHandler()
    handler.setFormatter(SafeFormatter())
    log = logging.getLogger("test.progress")
    log.addHandler(handler)
    log.propagate = False
    try:
        with ProgressBar(stream=term, width=60) as bar:
            bar.update(Progress(matches_total=4, matches_done=1, matches_played=1, games_done=1))
            log.warning("bot 'x' timed out")
            bar.update(Progress(matches_total=4, matches_done=4, matches_played=4, games_done=4))
    finally:
        log.removeHandler(handler)
    screen = term.screen()
    assert screen[0] == "warning: bot 'x' timed out"
    assert screen[1].startswith("games 4 · matches 4/4") and len(screen[1]) <= 59
    assert screen[2] == ""


def test_a_run_on_a_narrow_terminal_keeps_its_lines_within_it_and_shows_standings(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    """Through the CLI, COLUMNS = 40: every line of the live view fits, and --standings-every
    prints the top of the table with its certainty."""
    spec = tmp_path / "t.toml"
    spec.write_text('name = "t"\ngame = "reactor"\nseats = 2\nseed = 1\ngames = 2\n[sandbox]\nmode = "none"\n'
                    f'[[bots]]\nname = "heuristic-bot-with-a-long-name"\npath = "{BOT_DIR / "reactor_heuristic.py"}"\n'
                    f'[[bots]]\nname = "random"\npath = "{RANDOM}"\n')
    term = Terminal()
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setattr("arena.cli.run.ProgressBar", lambda enabled: ProgressBar(enabled, stream=term))
    result = CliRunner().invoke(app, ["run", str(spec), "--db", str(tmp_path / "a.db"), "--standings-every", "2"])
    assert result.exit_code == 0, result.output
    screen = term.screen()
    assert all(len(text) <= 39 for text in screen), screen
    assert any(text.startswith("standings after 2 games") for text in screen)
    assert any(text.startswith("standings after 4 games") for text in screen)
    assert any(text.startswith("   1  ") for text in screen) and any(text.startswith("   2  ") for text in screen)
    assert screen[-2].startswith("games 4 · matches 4/4")


def test_standings_show_each_bot_with_its_interval_and_the_certainty_of_each_pair() -> None:
    games = [GameOutcome(("a", "b", "c"), (1, 2, 3), f"t/m{i}-g0") for i in range(30)]
    lines = standings_lines(ranking_confidence(games, rank_ranges=False), 30, top=2)
    assert lines[0].startswith("standings after 30 games")
    assert re.fullmatch(r"   1  a  1\.00 \(\d\.\d\d-\d\.\d\d\)", lines[1])
    assert re.fullmatch(r"   2  b  2\.00 \(\d\.\d\d-\d\.\d\d\)  p 1\.00 separated", lines[2])
    assert lines[3] == "  ... and 1 more"
