"""Time every page of ``arena serve`` on a database of many games (issue 19: each under 200 ms at
100,000 games).

    python benchmarks/web_pages.py --games 100000 --db /tmp/web-bench.db [--repeat 5]

The database is made once (kept at ``--db`` and reused when it already holds the games): real
game records, played in-process by the built-in random and heuristic policies of both games at
tables of 3 and 4, stored again and again through the Store under new ids as the games of two
tournaments (one per game) of six bots each, with a fault and a stderr log in 1% of them, and
each tournament's rating history saved as ``arena run`` saves it.  Then ``arena serve`` runs on a
real port and every page is fetched over HTTP: once each right after the server's start (cold:
the rated pages come from the views the run stored in the database, ``views.store_views``, as
``arena run`` stores them; the time that takes is printed when the database is made), then
``--repeat`` rounds of every page (warm); printed are the first fetch, the median and the
slowest of the warm ones, in ms, and the page's size as sent (gzip).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import random
import sqlite3
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

from arena import ratings as rating
from arena.core.faults import FaultRecord
from arena.games.selfplay import SelfPlaySpec, iter_records
from arena.storage import GameRow, open_store, seat_results
from arena.web import views
from arena.web.serving import served

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"reactor": ("random", "heuristic"), "powder-keg": ("random", "heuristic")}
BOTS = 6


def pool(game: str, players: int, n: int) -> list[dict]:
    """``n`` real records of ``game`` at tables of ``players``."""
    spec = SelfPlaySpec(game, players, n, seed=f"bench-{players}", bots=GAMES[game],
                        points=1 if game == "powder-keg" else None)
    return list(itertools.islice(iter_records(spec), n))


def spec(tid: str, game: str, names: list[str], versions: dict[str, int]) -> dict:
    """The stored spec of a bench tournament: a round-robin at tables of four, as `arena run` stores one."""
    return {"name": tid, "game": game, "format": "round-robin", "seats": 4, "bots": [{"name": n} for n in names],
            "bot_versions": versions, "seed": "1", "rotations": True, "duplicate": False, "variants": [],
            "points": 1 if game == "powder-keg" else None, "games": 1, "sandbox": {},
            "time": {"decision": 2000, "game": 60000, "startup": 10000}}


def build(db: Path, games: int, seed: int = 1) -> None:
    """The database: ``games`` games split between the two tournaments."""
    rng = random.Random(seed)
    content = (ROOT / "bots" / "random_bot.py").read_bytes()
    with open_store(db) as store:
        for game in GAMES:
            names = [f"{game[:3]}-bot{i}" for i in range(BOTS)]
            versions = {n: store.add_bot_version(n, game, "random_bot.py", content + n.encode(),
                                                 ["python3", "random_bot.py"]).id for n in names}
            tid = f"bench-{game}"
            store.start_tournament(tid, tid, game, spec(tid, game, names, versions), 1)
            records = {p: pool(game, p, 60) for p in (3, 4)}
            for i in range(games // len(GAMES)):
                players = 3 + i % 2
                record = dict(records[players][i % len(records[players])])
                seats = rng.sample(names, players)
                record["seats"] = seats
                match = f"{tid}/r1-t{i // 3}-s{i % 3}"
                gid = f"{match}-g0"
                faults, logs = [], {}
                if i % 100 == 7:
                    faults = [FaultRecord(seat=0, kind="timeout", message="no answer within 2000 ms", decision=4)]
                    logs = {0: "Traceback (most recent call last):\n  ...\nTimeoutError\n"}
                store.add_game(GameRow(id=gid, game=game, seats=[versions[s] for s in seats],
                                       winner=record["result"]["winner"], record=record, tournament=tid,
                                       capped=record["result"]["capped"], round=1, table_no=i // 3,
                                       match_id=match, match_game=0), seat_results(record), faults, logs)
                if i % 10000 == 0:
                    print(f"  {game}: {i} games stored", file=sys.stderr)
            table = rating.RatingTable(rating.make_env())
            outcomes = rating.iter_outcomes(store.iter_results(tournament=tid))
            store.save_ratings(tid, rating.rate_points(outcomes, table))
            store.finish_tournament(tid)
    store_boards(db)


def store_boards(db: Path) -> None:
    """What ``arena run`` stores for the pages as it ends, for each tournament (timed: the time
    a run of that many games spends on it)."""
    with open_store(db) as store:
        for t in store.tournaments():
            start = time.perf_counter()
            views.store_views(store, t.id)
            print(f"  {t.id}: its pages' views stored in {time.perf_counter() - start:.1f} s", file=sys.stderr)


# The page the benchmark waits for at the server's start: it answers without rating anything.
READY = "/api/tournaments/bench-reactor/progress"


def fetch(url: str) -> tuple[float, int]:
    start = time.perf_counter()
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=600) as response:
        body = response.read()
        assert response.status == 200, url
    return (time.perf_counter() - start) * 1000, len(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--db", type=Path, default=Path("/tmp/arena-web-bench.db"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--stale", action="store_true",
                        help="then, on a copy with one more game, every page while the server rates it again")
    args = parser.parse_args()
    if args.db.exists():
        with open_store(args.db, readonly=True) as store:
            have = store.counts()["games"]
            kept = [store.stored_view(views.board_key(t.id, None)) for t in store.tournaments()]
            stored = all(k is not None and k.stamp[3:] == (views.VIEWS_VERSION,) for k in kept)
        if have != args.games:
            raise SystemExit(f"{args.db} holds {have} games, not {args.games}: remove it or pass another --db")
        if not stored:  # made by an arena that stored no views, or other ones
            store_boards(args.db)
    else:
        start = time.perf_counter()
        build(args.db, args.games)
        print(f"built {args.db}: {args.games} games in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    with open_store(args.db, readonly=True) as store:
        newest = store.games(tournament="bench-reactor", limit=1)[0]
        keg = store.games(tournament="bench-powder-keg", limit=1)[0]
        deep = store.game_page(limit=1)[0].seq - args.games + 100  # a page near the oldest games
        bot = newest.bots[0]
    pages = [
        "/", "/leaderboard/reactor", "/leaderboard/powder-keg", "/tournaments/bench-reactor",
        "/tournaments/bench-powder-keg", "/api/tournaments/bench-reactor/progress", f"/bots/{quote(bot)}",
        "/games", f"/games?before={deep}", f"/games?bot={quote(bot)}", "/games?tournament=bench-powder-keg",
        f"/games?bot={quote(bot)}&before={deep}", "/games?faults=1", f"/games?faults=1&bot={quote(bot)}",
        f"/games/{quote(newest.id)}", f"/games/{quote(keg.id)}",
    ]
    with served(args.db, ready=READY, quiet=True) as base:
        # First every page once, right after the start: the rated pages come from the views the
        # run stored.  Then the warm fetches, each page in turn.
        started = time.perf_counter()
        first = {page: fetch(base + page) for page in pages}
        print(f"{args.games} games; first pass over every page took {time.perf_counter() - started:.1f} s")
        warm: dict[str, list[float]] = {page: [] for page in pages}
        for _ in range(args.repeat):
            for page in pages:
                warm[page].append(fetch(base + page)[0])
        table(pages, first, warm, f"the first fetch, then the median and the slowest of {args.repeat}")
    if args.stale:
        while_rating(args.db, pages, newest.id)


def table(pages: list[str], first: dict[str, tuple[float, int]], later: dict[str, list[float]], what: str) -> None:
    print(f"ms per page over HTTP (gzip): {what}")
    print(f"{'page':58} {'first':>9} {'median':>8} {'max':>8} {'KB':>7}")
    for page in pages:
        ms, size = first[page]
        times = later[page]
        median, slowest = (f"{statistics.median(times):8.1f}", f"{max(times):8.1f}") if times else ("–".rjust(8),) * 2
        print(f"{page[:58]:58} {ms:9.1f} {median} {slowest} {size / 1024:7.1f}")


def while_rating(db: Path, pages: list[str], newest: str) -> None:
    """A copy of the database with one more game in the Reactor tournament (as a run going on
    adds it), served: every page while the server rates that tournament and the Reactor board
    again in the background, and how long until the pages are made of every game."""
    copy = db.with_name(db.stem + "-stale.db")
    copy.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as src, \
            contextlib.closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
    with open_store(copy) as store:
        row = store.games(tournament="bench-reactor", limit=1)[0]
        record = store.game_record(row.id)
        versions = {b.name: b.id for b in (store.bot(n) for n in record["seats"])}
        gid = "bench-reactor/r2-t1-s0-g0"
        store.add_game(GameRow(id=gid, game="reactor", seats=[versions[s] for s in record["seats"]],
                               winner=record["result"]["winner"], record=record, tournament="bench-reactor",
                               capped=record["result"]["capped"], round=2, table_no=1, match_id=gid[:-3]),
                       seat_results(record))
    try:
        with served(copy, ready=READY, quiet=True) as base:
            started = time.perf_counter()
            first = {page: fetch(base + page) for page in pages}
            during: dict[str, list[float]] = {page: [] for page in pages}
            while "updating" in body(base + "/tournaments/bench-reactor") or "updating" in body(
                    base + "/leaderboard/reactor"):
                for page in pages:
                    during[page].append(fetch(base + page)[0])
                if time.perf_counter() - started > 3600:
                    raise SystemExit("the pages were still updating after an hour")
            took = time.perf_counter() - started
            rounds = min(len(v) for v in during.values())
            if rounds:
                print(f"\none game added to bench-reactor: the server rated it again in {took:.0f} s; meanwhile")
            else:  # a scope small enough to be rated while its page waits: no page ever said "updating"
                print("\none game added to bench-reactor: its pages were rated again as they were asked for "
                      "(a small scope); then")
            table(pages, first, during, f"the first fetch, then the median and the slowest of {rounds} "
                                        "while it rated")
    finally:
        for path in [*copy.parent.glob(copy.name + "*"), *copy.parent.glob(f".{copy.name}*")]:  # its lock file too
            path.unlink()


def body(url: str) -> str:
    request = urllib.request.Request(url)
    with urllib.request.urlopen(request, timeout=600) as response:
        return response.read().decode()


if __name__ == "__main__":
    main()
