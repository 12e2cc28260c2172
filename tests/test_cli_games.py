"""`arena games` marks the games a bot lost because it was disqualified from the rest of a match
(they store no fault of their own, so without the mark they read as plain losses)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app

from common import RANDOM, ROOT
CRASHER = str(ROOT / "tests" / "bots" / "zoo_crash_mid.py")  # crashes on its third decision, every game
runner = CliRunner()


def test_games_lists_disqualified_seats(tmp_path: Path) -> None:
    """One faulty game disqualifies the crasher; its other games of each 3-point match are forfeits."""
    spec = tmp_path / "dq.toml"
    spec.write_text('name = "dq"\ngame = "reactor"\nseats = 2\nseed = 1\npoints = 3\nfaults_to_disqualify = 1\n'
                    f'[sandbox]\nmode = "none"\n[[bots]]\nname = "crasher"\npath = "{CRASHER}"\n'
                    f'[[bots]]\nname = "p0"\npath = "{RANDOM}"\n')
    db = str(tmp_path / "dq.db")
    assert runner.invoke(app, ["run", str(spec), "--db", db, "--quiet"]).exit_code == 0

    header, *listing = runner.invoke(app, ["games", "--db", db]).output.strip().splitlines()
    assert header.split() == ["id", "game", "places", "notes"]
    rows = json.loads(runner.invoke(app, ["games", "--db", db, "--json"]).stdout)
    assert [r["id"] for r in rows] == [line.split()[0] for line in listing]
    first = [r for r in rows if r["id"].endswith("-g0")]
    later = [r for r in rows if not r["id"].endswith("-g0")]
    assert len(first) == 2 and len(later) == 4  # two seat rotations, p0 wins each match 3-0
    for row, line in zip(rows, listing):
        crasher = row["bots"].index("crasher")
        if row in first:  # the game it crashed in: its own fault, not a disqualification
            assert row["faults"] == 1 and row["disqualified"] == []
            places, notes = re.split(r"\s{2,}", line)[2:]
            assert places.endswith("2. crasher") and notes == "1 fault(s)", line
        else:
            assert row["faults"] == 0 and row["disqualified"] == [crasher] and row["places"][crasher] == 2
            assert re.split(r"\s{2,}", line)[2:] == ["1. p0, 2. crasher", "crasher disqualified"], line
