"""No bot can learn the deal (issue 15, attacks 1 and 7): match seeds made with the database's
secret key, a bot seed that reveals nothing of them, exact replay and resume, and a fresh bot
process for each seat rotation of a duplicate deal."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from arena.core import deals
from arena.errors import ConfigError, StorageError
from arena.execution.jobs import sessions
from arena.execution.tasks import Task
from arena.games import GameConfig, SeededChance, get_game
from arena.games.record import replay, replay_steps
from arena.referee.seat import bot_seed
from arena.storage import open_store
from arena.tournament import Tournament
from arena.tournament.file import load_tournament
from common import MODE, RANDOM, ZOO

REDEAL = ZOO / "zoo_redeal.py"
REMEMBER = ZOO / "zoo_remember.py"
GAMES = int(os.environ.get("REDEAL_GAMES", "12"))  # the re-deal table's repetitions: 12 deals, 36 games (50: 150)
CHANCE_DRAWS = 20


def load_redeal() -> Any:
    """The hostile bot's attack, to run in-process against the old derivation."""
    spec = importlib.util.spec_from_file_location("zoo_redeal", REDEAL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tournament_file(tmp_path: Path, bots: dict[str, Path], *, name: str = "t", games: int = 1,
                    extra: str = "", file: str = "t.toml") -> Path:
    entries = "".join(f'[[bots]]\nname = "{n}"\npath = "{p}"\n' for n, p in bots.items())
    path = tmp_path / file
    path.write_text(f'name = "{name}"\ngame = "reactor"\nseats = {len(bots)}\ngames = {games}\n{extra}\n'
                    f'[sandbox]\nmode = "{MODE}"\n{entries}')
    return path


def run(path: Path, db: Path) -> None:
    with open_store(str(db)) as store:
        assert Tournament(load_tournament(path), store).run(workers=1).errors == []


def records(db: Path, tournament: str = "t") -> dict[str, dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM games WHERE tournament = ? ORDER BY id", [tournament])]
    with open_store(str(db)) as store:
        return {game_id: store.game_record(game_id) for game_id in ids}


def played(db: Path) -> dict[str, tuple[Any, ...]]:
    """What was played in each game: its seed, every chance outcome, every action, the result."""
    return {game_id: (r["seed"], r["chance"], [d["action"] for d in r["decisions"]], r["result"])
            for game_id, r in records(db).items()}


def dealt(record: dict[str, Any]) -> list[list[str]]:
    """Every seat's hand as dealt, from the record alone (no random generator)."""
    _, state = next(replay_steps(get_game(record["game"]), record))
    return [list(state.observation(s)["hand"]) for s in range(state.config.players)]


def overlap(predicted: dict[str, list[str]], hands: list[list[str]]) -> tuple[int, int]:
    """Cards of the prediction that the opponents really held, and cards predicted."""
    hit = sum(sum((Counter(cards) & Counter(hands[int(seat)])).values()) for seat, cards in predicted.items())
    return hit, sum(len(cards) for cards in predicted.values())


# --------------------------------------------------------------------------- the derivation


def test_match_seeds_need_the_key_and_the_bot_seed_reveals_nothing_of_them() -> None:
    key, other = bytes(32), bytes([1]) * 32
    label = "0:0:round_robin:r1-t1"
    seed = deals.deal_seed(key, label)
    assert seed == deals.deal_seed(key, label) and len(seed) == 64  # a function of key and label
    assert seed not in {deals.deal_seed(other, label), deals.deal_seed(key, label + ":rot1"), label}
    with pytest.raises(ValueError):
        deals.deal_seed(b"short", label)
    assert len({deals.random_root_seed() for _ in range(50)}) == 50


def test_the_attack_re_deals_every_game_of_the_old_derivation() -> None:
    """The hostile bot is no straw man: given what a bot was told before issue 15 (a guessable
    root seed, public labels), it finds the game's seed and every opponent's card, in both games."""
    attack = load_redeal()
    for game, players in (("reactor", 3), ("powder-keg", 4)):
        for seat in range(players):
            game_seed = f"0:0:round_robin:r2-t1:{seat % 2}"  # a duplicate deal, game 0 or 1 of its match
            config = GameConfig(players=players).to_json()
            msg = {"game_id": f"t/r2-t1-s{seat}-g{seat % 2}", "index": seat % 2, "seat": seat, "config": config,
                   "match_id": f"t/r2-t1-s{seat}", "seed": bot_seed(game_seed, seat)}
            state = get_game(game).new_game(GameConfig(players=players), SeededChance(game_seed))
            hands = [list(state.observation(s)["hand"]) for s in range(players)]
            report = attack.attack(game, list(attack.DEFAULT_ROOTS), msg, hands[seat])
            assert report["confirmed"] == 1 and report["own_hand"] >= 1
            hit, predicted = overlap(report["predicted"], hands)
            assert hit == predicted > 0


# --------------------------------------------------------------------------- attack 1 live


def test_a_bot_that_re_deals_from_what_it_is_told_learns_nothing(tmp_path: Path) -> None:
    """The re-deal attack, sandboxed, in a tournament with no seed (the default, "0"): it never
    confirms a candidate seed, never deals itself its own hand, and predicts the opponents'
    cards no better than a deal from an unrelated seed does.  Every game replays exactly from its
    record, and the seed stored with it deals it again."""
    db = tmp_path / "a.db"
    run(tournament_file(tmp_path, {"redeal": REDEAL, "r1": Path(RANDOM), "r2": Path(RANDOM)}, games=GAMES), db)
    games = records(db)
    assert len(games) == 3 * GAMES
    # Per deal (its seat rotations share it, and the bot's guesses): cards right, cards predicted,
    # and cards a guess at chance gets right (opponents' hands drawn from the cards it does not hold).
    clusters: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    own_hands = 0
    with open_store(str(db)) as store:
        for game_id, record in games.items():
            replay(get_game("reactor"), record)
            state = get_game("reactor").new_game(GameConfig.from_json(record["config"]), SeededChance(record["seed"]))
            assert state.chance.log == record["chance"][:len(state.chance.log)]
            hands = dealt(record)
            seat = record["seats"].index("redeal")
            lines = [line for line in store.logs(game_id).get(seat, "").splitlines() if line.startswith("zoo_redeal: ")]
            assert len(lines) == 1, store.logs(game_id)
            report = json.loads(lines[0].removeprefix("zoo_redeal: "))
            # A candidate may deal it its own three cards by chance; none is ever confirmed.
            assert report["candidates"] >= 50 and report["confirmed"] == 0, report
            own_hands += report["own_hand"]
            cluster = clusters[record["seed"].rsplit(":", 1)[0]]
            hit, n = overlap(report["predicted"], hands)
            cluster[0] += hit
            cluster[1] += n
            assert record["chance"][0]["what"] == "deck"
            unseen = list((Counter(record["chance"][0]["order"]) - Counter(hands[seat])).elements())
            for k in range(CHANCE_DRAWS):
                random.Random(f"{game_id}:{k}").shuffle(unseen)
                rest = iter(unseen)
                guess = {str(s): [next(rest) for _ in hands[s]] for s in range(len(hands)) if s != seat}
                cluster[2] += overlap(guess, hands)[0] / CHANCE_DRAWS
    assert own_hands < len(games)  # a chance match now and then
    hits, predicted, expected = (sum(c[i] for c in clusters.values()) for i in range(3))
    rate, base = hits / predicted, expected / predicted
    # The standard error of the rate, from the deals' spread (the games of one deal are not independent).
    spread = (sum((c[0] - base * c[1]) ** 2 for c in clusters.values()) * len(clusters) / (len(clusters) - 1)) ** 0.5
    spread /= predicted
    print(f"re-deal attack: {hits}/{predicted} opponent cards right ({rate:.3f}); chance {base:.3f} "
          f"(standard error {spread:.3f}); own hand dealt by {own_hands} candidates in {len(games)} games")
    assert rate < base + 4 * max(spread, 0.02), (rate, base, spread)


def test_a_tournament_deals_again_only_with_its_database_key(tmp_path: Path) -> None:
    """Deals follow from the database's key, the tournament's name and its seed: the same file in
    another database deals other games, unless that database is given the first one's key
    (ARENA_DEAL_KEY); another tournament with the same seed in the same database deals other
    games too (the published records of one tell nothing of the next)."""
    bots = {"r1": Path(RANDOM), "r2": Path(RANDOM)}
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    run(tournament_file(tmp_path, bots, extra="seed = 9"), first)
    run(tournament_file(tmp_path, bots, name="u", extra="seed = 9", file="u.toml"), first)
    run(tournament_file(tmp_path, bots, extra="seed = 9"), second)

    def chances(db: Path, name: str) -> list[list[Any]]:
        return [r["chance"] for _, r in sorted(records(db, name).items())]

    assert len(chances(first, "t")) == 2
    assert chances(first, "t") != chances(first, "u")
    assert chances(first, "t") != chances(second, "t")
    with sqlite3.connect(first) as conn:
        key = conn.execute("SELECT value FROM secrets WHERE name = 'deal_key'").fetchone()[0]
    conn.close()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(deals.KEY_ENV, key.hex().upper())  # as sqlite3's hex() prints it
        third = tmp_path / "c.db"
        run(tournament_file(tmp_path, bots, extra="seed = 9"), third)
        assert played(third) == played(first)
        with pytest.raises(StorageError, match="has a deal key of its own"), open_store(str(second)) as store:
            store.deal_key()
        patch.setenv(deals.KEY_ENV, "beef")
        with pytest.raises(ConfigError, match="must be 64 hex digits"), open_store(str(tmp_path / "d.db")) as store:
            store.deal_key()


def test_a_tournament_begun_before_keyed_deals_resumes_with_its_public_seeds(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A tournament stored without a 'deals' number was dealt from public labels: it resumes under
    them, so its games are those of an uninterrupted run of the arena it began under."""
    bots = {"r1": Path(RANDOM), "r2": Path(RANDOM), "r3": Path(RANDOM)}
    path = tournament_file(tmp_path, bots, games=2, extra="seed = 4")
    whole, cut = tmp_path / "whole.db", tmp_path / "cut.db"
    monkeypatch.setattr(deals, "DEALS", deals.PUBLIC_LABELS)  # as the arena of before issue 15 dealt
    run(path, whole)

    def interrupt(progress: Any) -> None:
        if progress.games_done >= 2:
            raise KeyboardInterrupt

    with open_store(str(cut)) as store, pytest.raises(KeyboardInterrupt):
        Tournament(load_tournament(path), store).run(workers=1, on_progress=interrupt)
    with sqlite3.connect(cut) as conn:  # stored as that arena stored it: no 'deals' at all
        spec = json.loads(conn.execute("SELECT spec FROM tournaments").fetchone()[0])
        assert spec.pop("deals") == deals.PUBLIC_LABELS
        conn.execute("UPDATE tournaments SET spec = ?", [json.dumps(spec, sort_keys=True)])
    conn.close()
    monkeypatch.setattr(deals, "DEALS", deals.KEYED)
    run(path, cut)
    assert played(cut) == played(whole)
    assert all(r["seed"].startswith("4:4:round_robin:") for r in records(whole).values())


# --------------------------------------------------------------------------- attack 7: duplicate deals


def test_sessions_never_hold_one_deal_twice() -> None:
    tasks = [Task(None, f"m{i}", seed, ()) for i, seed in enumerate("AABBBCA")]  # type: ignore[arg-type]
    parts = sessions(tasks)
    assert [[t.match_id for t in part] for part in parts] == [["m0", "m2", "m5"], ["m1", "m3"], ["m4", "m6"]]
    assert all(len({t.seed for t in part}) == len(part) for part in parts)
    assert sessions(tasks[2:3]) == [tasks[2:3]]


def test_no_bot_process_sees_two_rotations_of_a_duplicate_deal(tmp_path: Path) -> None:
    """With duplicate = true every rotation of a table plays one deal (the records show it); each
    bot process, which remembers every game it played, played each deal once, and found nothing
    of an earlier process in its working folder or /tmp."""
    db = tmp_path / "a.db"
    bots = {"m1": REMEMBER, "m2": REMEMBER, "m3": REMEMBER}
    run(tournament_file(tmp_path, bots, games=2, extra="duplicate = true"), db)
    games = records(db)
    assert len(games) == 6
    deal_of = {game_id: r["seed"].rsplit(":", 1)[0] for game_id, r in games.items()}
    by_deal: dict[str, list[str]] = defaultdict(list)
    for game_id, deal in deal_of.items():
        by_deal[deal].append(game_id)
    assert sorted(len(v) for v in by_deal.values()) == [3, 3]  # the rotations share their deal ...
    for same in by_deal.values():
        assert len({json.dumps(games[g]["chance"]) for g in same}) == 1  # ... card for card
    seen: dict[str, list[str]] = defaultdict(list)  # process -> games it played
    with open_store(str(db)) as store:
        for game_id in games:
            for seat, log in store.logs(game_id).items():
                lines = [json.loads(line.removeprefix("zoo_remember: ")) for line in log.splitlines()
                         if line.startswith("zoo_remember: ")]
                assert [r["game_id"] for r in lines] == [game_id], log
                assert lines[0]["inherited"] == []
                seen[lines[0]["process"]].append(game_id)
                assert set(lines[0]["earlier"]) <= set(games)
    assert sum(len(v) for v in seen.values()) == 18
    for process, played in seen.items():
        assert len({deal_of[g] for g in played}) == len(played), (process, played)
    assert len(seen) >= 9  # three bots, each in a process of its own for each of three rotations


def test_the_attack_knows_how_the_referee_makes_the_bot_seed() -> None:
    """The redeal bot's check of a candidate seed is the referee's own derivation of
    game_start.seed: its finding nothing is not a mistake of its own."""
    assert load_redeal().bot_seed("x:0", 2) == bot_seed("x:0", 2) != bot_seed("x:0", 1)
