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


# How far ahead of random (in mean place over the games) the heuristic must finish.  Each
# database deals from a key of its own, so each run plays other deals.  In Powder Keg, at three
# seats, the heuristic is only 0.60 ahead on average (`python benchmarks/bundled_margin.py --runs
# 300`, in-process, 2026-12-03): a margin of 0.5 failed 98 of the 300 runs (so this test failed
# about one run in three), a margin of 0.1 one, and the heuristic was never behind.  Reactor's
# heuristic is far ahead (a 0.5 margin has not failed in any CI run).
HEURISTIC_MARGIN = {"reactor": 0.5, "powder-keg": 0.1}
# Games per rotation (three rotations).  The leaderboard orders by conservative TrueSkill score,
# which weighs late games more than mean place does: in Powder Keg, over 36 games, it put the
# heuristic above the strong bot in 3 of 300 simulated runs (and in a CI run), over 72 games in
# none of 300, its least lead 0.69 (`bundled_margin.py --runs 300 --games 72`); mean place kept
# the order in every run of both.  In Reactor the strong bot is only 0.35 places ahead of the
# heuristic on average (`bundled_margin.py --game reactor --runs 100 --games 36,72 --jobs 2`,
# 2026-12-04): over 36 games it was not ahead in mean place in 5 of 100 runs and not above it in
# rating in 6 (and this test failed so in a CI run); over 72 games in 1 and 0 of 100, the lead's
# spread then about 0.15.  Over 108 games that spread is about 0.12 (it falls as one over the
# root of the games), so the lead is some 2.9 spreads above 0: about 2 runs in 1,000 fail.
GAMES = {"reactor": 36, "powder-keg": 24}


@pytest.mark.perf  # bots' strength in a real tournament
@pytest.mark.parametrize(("game", "prefix", "points"), [("reactor", "reactor", 1), ("powder-keg", "keg", 1)])
def test_bundled_bots_rank_in_order_of_strength(tmp_path: Path, game: str, prefix: str, points: int) -> None:
    spec_file = tmp_path / "bundled.toml"
    bots = {"random": "random_bot.py", "heuristic": f"{prefix}_heuristic.py", "strong": f"{prefix}_strong.py"}
    spec_file.write_text(
        f'name = "bundled-{game}"\ngame = "{game}"\nseats = 3\ngames = {GAMES[game]}\npoints = {points}\nseed = 11\n'
        + "".join(f'[[bots]]\nname = "{name}"\npath = "{ROOT / "bots" / file}"\n' for name, file in bots.items())
    )
    db = tmp_path / "arena.db"
    with open_store(str(db)) as store:
        outcome = Tournament(load_tournament(spec_file), store).run(workers=2)
    assert outcome.errors == []
    board = {row.bot: row for row in outcome.leaderboard}
    assert all(row.faults == {} for row in outcome.leaderboard)
    assert [row.bot for row in outcome.leaderboard][-1] == "random"
    assert board["heuristic"].mean_place < board["random"].mean_place - HEURISTIC_MARGIN[game]
    assert board["strong"].mean_place < board["random"].mean_place - 0.5
    assert board["random"].score < min(board["heuristic"].score, board["strong"].score)
    assert board["strong"].mean_place < board["heuristic"].mean_place
    assert [row.bot for row in outcome.leaderboard] == ["strong", "heuristic", "random"]
