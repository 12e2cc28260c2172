"""In-process play for bot authors (arena.debug.play): the same seed gives the same games as
the referee plays with the bots as sandboxed programs."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

import arena.debug
from arena.games import GameConfig, get_game
from arena.referee import RefereeConfig
from arena.referee.play import play_matches
from arena.sandbox import Mode

from common import BOT_DIR, MODE


def _class(path: Path, name: str) -> type:
    """A bot file's class, imported as a module (its ``if __name__ == "__main__"`` does not run)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def _game(record: dict[str, Any]) -> dict[str, Any]:
    """What decides a game: everything but the time each decision took and the referee's notes."""
    kept = {k: v for k, v in record.items() if k not in ("faults", "logs", "starts")}
    kept["decisions"] = [{k: v for k, v in d.items() if k != "ms"} for d in record["decisions"]]
    return kept


@pytest.mark.parametrize(("game", "files", "inprocess", "points"), [
    ("reactor", ["random_bot.py", "reactor_heuristic.py", "reactor_strong.py"], ["RandomBot", "heuristic", "strong"],
     None),
    ("powder-keg", ["keg_strong.py", "random_bot.py"], ["strong", "RandomBot"], 2),
])
def test_in_process_games_equal_the_referees_for_the_same_seed(game: str, files: list[str], inprocess: list[str],
                                                               points: int | None) -> None:
    bots = [_class(BOT_DIR / f, n) if n[0].isupper() else n for f, n in zip(files, inprocess)]
    names = [Path(f).stem for f in files]
    ours = arena.debug.play(bots, game, seed="s9", matches=2, points=points, names=names)
    config = GameConfig(players=len(files), points=points)
    summary = play_matches(get_game(game), config, [str(BOT_DIR / f) for f in files], matches=2, seed="s9",
                           referee=RefereeConfig(sandbox_mode=Mode(MODE)))
    theirs = [g.record for m in summary.matches for g in m.games]
    assert all(not g["faults"] for g in theirs)
    assert len(ours) == len(theirs) >= 2
    assert [_game(r) for r in ours] == [_game(r) for r in theirs]


def test_an_illegal_answer_stops_in_process_play_with_the_legal_list() -> None:
    def wrong(observation, legal):
        return {"type": "nonsense"}

    with pytest.raises(arena.debug.IllegalAction, match=r"is not in the legal set; legal: \{"):
        arena.debug.play([wrong, "random"], "reactor", seed="1")
