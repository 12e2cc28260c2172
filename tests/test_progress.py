"""The progress line: matches done of total, games, games/s, and time left from this run's pace."""

from __future__ import annotations

import io
import time

from arena.cli.progress import ProgressBar
from arena.tournament import Progress


def test_progress_line_counts_and_estimates_from_played_matches() -> None:
    p = Progress(matches_total=10, matches_done=6, matches_played=2, games_done=2, games_skipped=4,
                 started=time.monotonic() - 20)
    text = ProgressBar(stream=io.StringIO()).text(p)
    assert "6/10 matches, 2 games (4 already stored)" in text
    assert "0:00:40 left" in text  # 10 s per played match, 4 matches to go
    assert "0.1 games/s" in text


def test_progress_prints_lines_when_not_a_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar(stream=out)
    bar.update(Progress(matches_total=2, matches_done=2, matches_played=2, games_done=2))
    bar.close()
    assert out.getvalue().count("\n") == 1 and "2/2 matches" in out.getvalue()


def test_a_run_with_nothing_left_says_so() -> None:
    """All stored already (a rerun): nothing is left, which is no reason for a '?'."""
    p = Progress(matches_total=3, matches_done=3, matches_played=0, games_skipped=3)
    assert ProgressBar(stream=io.StringIO()).text(p).endswith("0:00:00 left")
