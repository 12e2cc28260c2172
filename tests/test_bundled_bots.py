"""The bundled bots, as programs in a real tournament (sandbox, referee, storage, ratings):
the ratings put them in their known order of strength (benchmarks/bot_strength.py measures
the margins in-process; the README states them).  The known order, for both games: random last
by a wide margin, then the simple heuristic, then the strong bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.storage import open_store
from arena.tournament import Tournament
from arena.tournament.file import load_tournament

from common import ROOT


@pytest.mark.perf  # bots' strength in a real tournament
@pytest.mark.parametrize(("game", "prefix", "points"), [("reactor", "reactor", 1), ("powder-keg", "keg", 1)])
def test_bundled_bots_rank_in_order_of_strength(tmp_path: Path, game: str, prefix: str, points: int) -> None:
    spec_file = tmp_path / "bundled.toml"
    bots = {"random": "random_bot.py", "heuristic": f"{prefix}_heuristic.py", "strong": f"{prefix}_strong.py"}
    spec_file.write_text(
        f'name = "bundled-{game}"\ngame = "{game}"\nseats = 3\ngames = 12\npoints = {points}\nseed = 11\n'
        + "".join(f'[[bots]]\nname = "{name}"\npath = "{ROOT / "bots" / file}"\n' for name, file in bots.items())
    )
    db = tmp_path / "arena.db"
    with open_store(str(db)) as store:
        outcome = Tournament(load_tournament(spec_file), store).run(workers=2)
    assert outcome.errors == []
    board = {row.bot: row for row in outcome.leaderboard}
    assert all(row.faults == {} for row in outcome.leaderboard)
    assert [row.bot for row in outcome.leaderboard][-1] == "random"
    assert board["heuristic"].mean_place < board["random"].mean_place - 0.5
    assert board["strong"].mean_place < board["random"].mean_place - 0.5
    assert board["random"].score < min(board["heuristic"].score, board["strong"].score)
    assert board["strong"].mean_place < board["heuristic"].mean_place
    assert [row.bot for row in outcome.leaderboard] == ["strong", "heuristic", "random"]
