"""``arena serve`` and ``arena report`` (issue 19) over HTTP, and the replay viewer's frames.

A real server (``arena serve`` in a process of its own, on a real port) over a database made by
two real tournaments of the bundled bots; the browser tests are in test_web_browser.py."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import html
import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from arena import results
from arena.core.faults import FaultRecord
from arena.games import REGISTRY, get_game
from arena.games.selfplay import SelfPlaySpec, iter_records
from arena.storage import GameRow, open_store, seat_results
from arena.storage.schema import STEPS
from arena.web import views
from arena.web.render import script_json
from arena.web.replay import frames, seat_view
from webtools import KEG, REACTOR, arena, free_port, get, served, shared_db

EVIL = "<script>window.__xss=1</script><img src=x onerror=window.__xss=2>"
EVIL_STDERR = "</script><script>window.__xss=3</script> & <b>bold</b>"


def add_evil_game(db: Path) -> str:
    """Store a bot whose name carries markup, in a real Reactor game (a stored record with the
    bot in seat 0), with a fault and a stderr log that carry markup too: what the pages must
    show as text.  Stored through the Store, as the registry would (names from the CLI are
    checked, but the store takes any)."""
    with open_store(db) as store:
        source = store.games(tournament=REACTOR, limit=1)[0]
        record = copy.deepcopy(store.game_record(source.id))
        evil = store.add_bot_version(EVIL, "reactor", "evil.py", b"# evil\n", ["python3", "evil.py"])
        others = [store.bot(name).id for name in record["seats"][1:]]
        record["seats"][0] = EVIL
        gid = "evil-game-1"
        store.add_game(GameRow(id=gid, game="reactor", seats=[evil.id, *others], winner=record["result"]["winner"],
                               record=record, capped=record["result"]["capped"]),
                       seat_results(record),
                       [FaultRecord(seat=0, kind="illegal", message=f"answered {EVIL_STDERR}", decision=3)],
                       {0: EVIL_STDERR})
    return gid


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = shared_db(tmp_path_factory, "web")
    add_evil_game(path)
    return path


@pytest.fixture(scope="module")
def server(db: Path):
    with served(db) as (base, _):
        yield base


def digest(path: Path) -> str:
    """The database as a reader finds it: the file and its -wal (where a write would go first;
    the -shm file is an index readers rebuild, left out)."""
    wal = path.with_name(path.name + "-wal")
    return hashlib.sha256(path.read_bytes() + b"\0wal\0" + (wal.read_bytes() if wal.exists() else b"")).hexdigest()


def links_in(body: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'href="([^"]+)"', body)]


def test_every_page_answers_and_no_request_writes(db: Path, server: str) -> None:
    before = digest(db)
    status, index = get(server + "/")
    assert status == 200
    seen: set[str] = set()
    todo = [h for h in links_in(index) if h.startswith("/")]
    while todo:  # every page the index leads to, two links deep
        url = todo.pop()
        if url in seen or len(seen) > 80:
            continue
        seen.add(url)
        status, body = get(server + url)
        assert status == 200, url
        if url.count("/") <= 2:
            todo += [h for h in links_in(body) if h.startswith("/") and not h.startswith("/static")]
    assert any(u.startswith("/games/") for u in seen) and any(u.startswith("/bots/") for u in seen)
    assert any(u.startswith("/tournaments/") for u in seen) and any(u.startswith("/leaderboard/") for u in seen)
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        for url in ("/", f"/tournaments/{REACTOR}", "/games", "/bots/random"):
            assert get(server + url, method)[0] == 405, (method, url)
    assert digest(db) == before  # the database file is byte for byte what it was


def test_the_leaderboard_is_the_ratings_in_order(db: Path, server: str) -> None:
    rows = json.loads(arena("ratings", "--tournament", REACTOR, "--db", str(db), "--json").stdout)
    status, body = get(server + f"/tournaments/{REACTOR}")
    assert status == 200
    board = body.split('id="leaderboard"')[1].split("</table>")[0]
    assert re.findall(r'data-bot="([^"]+)"', board) == [r["bot"] for r in rows]
    for r in rows:
        assert f"{r['score']:.2f}" in board and f"{r['mean_place']:.2f}" in board
    assert "finished" in body.split('id="progress"')[1][:400]


def test_the_progress_endpoint(server: str) -> None:
    status, body = get(server + f"/api/tournaments/{KEG}/progress")
    p = json.loads(body)
    assert status == 200 and p["status"] == "finished" and p["matches"] == p["planned"] == 3
    assert p["games"] >= 3
    assert get(server + "/api/tournaments/nope/progress")[0] == 404


def test_unknown_things_are_404(server: str) -> None:
    for url in ("/bots/nobody", "/tournaments/nope", "/games/no/such-g0", "/leaderboard/chess", "/nothing"):
        status, body = get(server + url)
        assert status == 404, url
        assert "<h1>404</h1>" in body


def test_the_games_list_pages_through_every_game_once(db: Path, server: str) -> None:
    with open_store(db, readonly=True) as store:
        expected = [g.id for g in store.games()]

    got: list[str] = []
    url = "/games?limit=4"
    while url:
        status, body = get(server + url)
        assert status == 200
        got += [html.unescape(g) for g in re.findall(r'<a class="gid" href="/games/[^"]+">([^<]+)</a>', body)]
        nxt = re.search(r'id="next-page" href="([^"]+)"', body)
        url = html.unescape(nxt.group(1)) if nxt else ""
    assert got == expected and len(expected) > 3 * 4
    assert get(server + "/games?limit=0")[0] == 400 and get(server + "/games?before=x")[0] == 400
    # The filters: one bot's games, one tournament's.
    status, body = get(server + "/games?bot=keg-strong")
    listed = re.findall(r'<a class="gid" href="/games/[^"]+">([^<]+)</a>', body)
    assert listed and all(g.startswith(KEG) for g in listed)


def test_the_games_list_has_the_filters_of_arena_games(db: Path, server: str) -> None:
    """Several bots at the table, a round, only games with a fault: the page lists what
    `arena games` lists with the same filters, and its next-page link keeps them."""
    def ids(url: str) -> list[str]:
        status, body = get(server + url)
        assert status == 200, url
        return [html.unescape(g) for g in re.findall(r'<a class="gid" href="/games/[^"]+">([^<]+)</a>', body)]

    def cli(*args: str) -> list[str]:
        return [r["id"] for r in json.loads(arena("games", *args, "--limit", "500", "--db", str(db), "--json").stdout)]

    cases = [("?bot=random&bot=reactor-strong&limit=200", ("--bot", "random", "--bot", "reactor-strong")),
             (f"?tournament={REACTOR}&round=1&limit=200", ("--tournament", REACTOR, "--round", "1")),
             ("?faults=1&limit=200", ("--faults",))]
    for url, args in cases:
        expected = cli(*args)
        assert expected and ids("/games" + url) == expected, url
    assert len(cli("--bot", "random", "--bot", "reactor-strong")) < len(cli("--bot", "random"))
    assert "evil-game-1" in cli("--faults") and get(server + "/games?round=x")[0] == 400
    status, body = get(server + "/games?bot=random&bot=reactor-strong&limit=2")
    nxt = html.unescape(re.search(r'id="next-page" href="([^"]+)"', body).group(1))
    assert "bot=random" in nxt and "bot=reactor-strong" in nxt and "limit=2" in nxt


def test_bot_strings_are_escaped(db: Path, server: str) -> None:
    for url in ("/", "/leaderboard/reactor", "/games", "/games/evil-game-1", "/bots/" + quote(EVIL, safe="")):
        status, body = get(server + url)
        assert status == 200, url
        assert "<script>window" not in body and "<img src=x" not in body, url  # no markup of the bot's
        escaped = ("&lt;script&gt;window.__xss=1&lt;/script&gt;", "\\u003cscript\\u003ewindow.__xss=1")
        assert any(e in body for e in escaped), url
    status, body = get(server + "/bots/" + quote(EVIL, safe=""))
    assert "&lt;/script&gt;&lt;script&gt;window.__xss=3&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in body  # stderr


def test_script_json_can_not_end_its_block() -> None:
    text = str(script_json({"name": "</script><script>alert(1)</script>", "amp": "&", "line": "\u2028"}))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script>", "amp": "&", "line": "\u2028"}


def test_serve_binds_to_this_machine_only(db: Path, server: str) -> None:
    port = int(server.rsplit(":", 1)[1])
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if int(hex_port, 16) == port and state == "0A":  # LISTEN
                listening.append(address)
    assert listening == ["0100007F"]  # 127.0.0.1, and nothing else


def test_serve_refuses_a_missing_database(tmp_path: Path) -> None:
    done = arena("serve", "--db", str(tmp_path / "none.db"), check=False)
    assert done.returncode == 2 and "no database" in done.stderr and not (tmp_path / "none.db").exists()


def records_of_every_kind() -> list[dict]:
    """In-process games of both games, every variant of each alone and all together, 2 to 5 or 6 seats."""
    out = []
    for name, game in REGISTRY.items():
        variants = list(getattr(__import__(f"arena.games.{name.replace('-', '_')}.rules", fromlist=["VARIANTS"]),
                                "VARIANTS", ()))
        sets = [()] + [(v,) for v in variants] + ([tuple(variants)] if len(variants) > 1 else [])
        for i, vs in enumerate(sets):
            players = 2 + i % 4
            spec = SelfPlaySpec(name, players, 1, seed=f"web-{i}", variants=vs,
                                bots=("random",), points=1 if name == "powder-keg" else None)
            out += list(iter_records(spec))
    return out


@pytest.mark.parametrize("record", records_of_every_kind(), ids=lambda r: f"{r['game']}-{r['config']['players']}p-"
                         + ("+".join(r["config"].get("variants", [])) or "plain"))
def test_a_seat_view_is_exactly_its_observation(record: dict) -> None:
    """At every frame, the table drawn for a seat (the public table and its hand) is the seat's
    observation from the engine; the omniscient frame holds every hand and the pile."""
    data = frames(record)
    game = get_game(record["game"])
    from arena.games.record import replay_steps

    for frame, (_, state) in zip(data["frames"], replay_steps(game, record), strict=True):
        for seat in range(record["config"]["players"]):
            observation = state.observation(seat)
            observation.pop("decision", None)
            assert seat_view(frame, seat) == observation
        assert frame["table"]["pile"] == len(frame["pile"])
    # Every seat's own decisions are there, each as the seat saw it.
    decided = {str(n) for n, d in enumerate(record["decisions"])}
    assert set().union(*(set(s) for s in data["seat_decisions"])) == decided


def test_report_writes_pages_that_need_no_server(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    done = arena("report", REACTOR, "--html", str(out), "--db", str(db))
    assert "index.html" in done.stderr
    pages = sorted(p.name for p in out.glob("*.html"))
    assert "index.html" in pages and "games.html" in pages
    with open_store(db, readonly=True) as store:
        games = store.games(tournament=REACTOR)
    assert sum(p.startswith("game-") for p in pages) == len(games)
    assert sum(p.startswith("bot-") for p in pages) == 3
    assert (out / "static" / "chart.umd.min.js").exists() and (out / "static" / "chart.js-LICENSE.md").exists()
    for page in out.glob("*.html"):
        body = page.read_text()
        for ref in re.findall(r'(?:href|src)="([^"]+)"', body):
            ref = html.unescape(ref)
            if ref.startswith("data:"):
                continue
            assert "://" not in ref and not ref.startswith("/"), (page.name, ref)  # relative, offline
            assert (out / ref.split("?")[0]).exists(), (page.name, ref)  # every link lands
    assert arena("report", "nope", "--html", str(tmp_path / "x"), "--db", str(db), check=False).returncode == 1


def test_the_stores_reads_for_the_pages(db: Path) -> None:
    """What storage gained for the pages agrees with what it had: a keyset page is a slice of
    the newest-first list, a bot's seats add up to its games, a tournament's size is its ids."""
    from arena.core.ids import GameId

    with open_store(db, readonly=True) as store:
        every = store.games()
        before = every[3].seq
        assert [g.id for g in store.game_page(before=before, limit=4)] == [g.id for g in every[4:8]]
        assert [g.id for g in store.game_page(game="powder-keg", limit=500)] == [
            g.id for g in every if g.game == "powder-keg"]
        assert [g.seq for g in every] == sorted((g.seq for g in every), reverse=True)
        for bot in ("random", "keg-strong", EVIL):
            seats = store.bot_seats(bot)
            assert sum(n for _, _, n, _, _ in seats) == store.bot_games(bot)
        for t in (REACTOR, KEG):
            ids = store.played_ids(t)
            assert store.tournament_size(t) == (len(ids), len({GameId.parse(i).match for i in ids}))
            history = store.rating_history(t)
            assert store.bot_rating_history(t, "random" if t == REACTOR else "keg-random") == [
                p for p in history if p.bot == ("random" if t == REACTOR else "keg-random")]
        total, faults = store.bot_faults(EVIL, 10)
        assert total == 1 and faults[0][0] == "evil-game-1" and faults[0][1].kind == "illegal"
        with store.snapshot():
            with store.snapshot():  # a snapshot inside another is the outer one
                assert store.games(limit=1)[0].id == every[0].id


# --- stored boards and stale-while-revalidate (issue 19: every page fast at 100,000 games, the
# first visit included) -----------------------------------------------------------------------

def copy_of(db: Path, target: Path) -> Path:
    """A copy of the module's database (SQLite's backup: whole, whatever its WAL holds)."""
    with contextlib.closing(sqlite3.connect(db)) as src, contextlib.closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
    return target


@contextlib.contextmanager
def served_here(db: Path, *, apart: bool = True) -> Iterator[str]:
    """``arena serve``'s app on a real port, in this process (so that a test can change what the
    server computes, or how large a scope it rates while the page waits).  ``apart=False``: large
    scopes are rated in a thread of this process, not in a process of their own (a test that
    changes the rating function changes it only here)."""
    import uvicorn

    from arena.web.app import make_app

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(str(db), apart=apart), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def add_reactor_game(db: Path, gid: str, tournament: str = REACTOR) -> None:
    """One more game of the tournament (a stored record again, under a new id), as a run that
    goes on would add it."""
    with open_store(db) as store:
        source = store.games(tournament=tournament, limit=1)[0]
        record = copy.deepcopy(store.game_record(source.id))
        seats = [store.bot(name).id for name in record["seats"]]
        store.add_game(GameRow(id=gid, game=source.game, seats=seats, winner=record["result"]["winner"],
                               record=record, tournament=tournament, capped=record["result"]["capped"], round=9,
                               table_no=1, match_id=gid.rsplit("-g", 1)[0]), seat_results(record))


def rated_games(body: str) -> int:
    return int(re.search(r"(\d+) rated games", body).group(1))  # type: ignore[union-attr]


def poll(url: str, done: Callable[[str], bool], seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    while True:
        status, body = get(url)
        assert status == 200, url
        if done(body):
            return body
        assert time.monotonic() < deadline, f"{url} did not change within {seconds} s:\n{body[:2000]}"
        time.sleep(0.2)


def test_arena_run_stores_what_the_pages_show(db: Path) -> None:
    """`arena run` keeps its tournament's leaderboard, standings and its game's leaderboard in
    the database, each with the stamp of the games it was made from: the very views a page would
    compute from those games."""
    with open_store(db, readonly=True) as store:
        for t in (REACTOR, KEG):
            kept = store.stored_view(views.board_key(t, None))
            assert kept is not None and kept.stamp == (*views.scope_stamp(store, t, None), views.VIEWS_VERSION)
            assert kept.value == views.leaderboard(store, tournament=t).to_json()
            table = store.stored_view(views.standings_key(t))
            assert table is not None and table.stamp == kept.stamp
            assert table.value == views.standings_view(store, t).to_json()
            assert views.Leaderboard.from_json(kept.value).to_json() == kept.value  # read back whole
        # The game's board was stored at the end of its last run: before the evil game was added.
        every = store.stored_view(views.board_key(None, "reactor"))
        assert every is not None and every.stamp[0] == store.tournament_size(REACTOR)[0]
        assert every.stamp[:3] != views.scope_stamp(store, None, "reactor")


def test_a_first_visit_shows_the_stored_board_without_rating(db: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Right after the server starts, a page shows the board `arena run` stored: nothing is rated
    (here rating fails outright).  A stored board of fewer games than the scope holds now is shown
    at once, saying how old it is, while it is rated again; a failure to rate it is said too."""
    path = copy_of(db, tmp_path / "arena.db")

    def no_rating(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the ratings were computed")

    monkeypatch.setattr(views, "leaderboard", no_rating)
    monkeypatch.setattr(results, "standings", no_rating)
    monkeypatch.setattr(views, "INLINE_GAMES", 0)  # every scope as a large one
    with open_store(path, readonly=True) as store:
        order = [r["bot"] for r in store.stored_view(views.board_key(REACTOR, None)).value["board"]["rows"]]
        games = store.tournament_size(REACTOR)[0]
    with served_here(path, apart=False) as base:
        status, body = get(base + f"/tournaments/{REACTOR}")
        assert status == 200 and "updating" not in body and "being" not in body
        board = body.split('id="leaderboard"')[1].split("</table>")[0]
        assert re.findall(r'data-bot="([^"]+)"', board) == order
        assert 'id="standings"' in body and "http-equiv" not in body
        # The game's board is older than its games (the evil game came after the runs).
        status, body = get(base + "/leaderboard/reactor")
        assert status == 200 and 'id="leaderboard"' in body
        assert f"ratings as of {games} of {games + 1} games; " in body
        poll(base + "/leaderboard/reactor", lambda b: f"ratings as of {games} of {games + 1} games; making them "
                                                      "again failed: the ratings were computed" in b)


def test_a_new_game_serves_the_old_board_then_the_new_one(db: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A game added to a large scope: the next visit gets the board of before at once, saying
    "ratings as of N of N+1 games; updating", and a later one the board with the new game."""
    path = copy_of(db, tmp_path / "arena.db")
    monkeypatch.setattr(views, "INLINE_GAMES", 0)
    with served_here(path) as base:
        url = base + f"/tournaments/{REACTOR}"
        status, body = get(url)
        assert status == 200 and "updating" not in body
        rated = rated_games(body)
        with open_store(path, readonly=True) as store:
            games = store.tournament_size(REACTOR)[0]
        add_reactor_game(path, f"{REACTOR}/r9-t1-s0-g0")
        status, body = get(url)
        assert status == 200 and rated_games(body) == rated
        assert f"ratings as of {games} of {games + 1} games; updating" in body
        assert f"standings as of {games} of {games + 1} games; updating" in body
        body = poll(url, lambda b: "updating" not in b)
        assert rated_games(body) == rated + 1


def test_a_large_scope_with_nothing_stored_answers_at_once_and_reloads(db: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A database of the arena before stored boards (schema step 9): it opens and serves (upgraded
    as it opens).  With nothing rated yet, a large scope's page answers at once that it is being
    rated and reloads itself (a meta refresh: the CSP runs no inline script), until the board is made."""
    from common import as_released

    path = tmp_path / "old.db"
    as_released(db, path, steps=9)
    gate = threading.Event()
    rate = views.leaderboard

    def held(*args: Any, **kwargs: Any) -> views.Leaderboard:
        gate.wait(60)
        return rate(*args, **kwargs)

    monkeypatch.setattr(views, "leaderboard", held)
    monkeypatch.setattr(views, "INLINE_GAMES", 0)
    with served_here(path, apart=False) as base:
        for url in ("/leaderboard/reactor", f"/tournaments/{REACTOR}"):
            status, body = get(base + url)
            assert status == 200 and "being rated" in body, url
            assert '<meta http-equiv="refresh" content="5">' in body and 'id="leaderboard"' not in body
        gate.set()
        body = poll(base + "/leaderboard/reactor", lambda b: 'id="leaderboard"' in b)
        assert "http-equiv" not in body and "being rated" not in body
        poll(base + f"/tournaments/{REACTOR}", lambda b: 'id="standings"' in b and "http-equiv" not in b)
    with open_store(path, readonly=True) as store:
        assert store.schema_version == len(STEPS)


def test_small_scopes_are_rated_while_the_page_waits(db: Path, tmp_path: Path) -> None:
    """Below the size that is rated in the background, a new game is on the very next page."""
    path = copy_of(db, tmp_path / "arena.db")
    with served_here(path) as base:
        url = base + f"/tournaments/{REACTOR}"
        rated = rated_games(get(url)[1])
        add_reactor_game(path, f"{REACTOR}/r9-t1-s0-g0")
        status, body = get(url)
        assert status == 200 and rated_games(body) == rated + 1 and "updating" not in body


def test_a_tournament_page_lists_the_last_tables_only() -> None:
    """A round-robin of 50,000 games at tables of their own has 16,667 tables: the page lists
    the last ones of the schedule (issue 19: a page of a huge tournament stays small)."""
    from arena.results import RoundResult, TableResult

    def rnd(number: int, tables: int, byes: tuple[str, ...] = ()) -> RoundResult:
        return RoundResult(number, tuple(TableResult(number, t, ("a", "b"), {}, {}, 1, 1)
                                         for t in range(1, tables + 1)), byes)

    rounds = [rnd(1, 5), rnd(2, 4), rnd(3, 3, ("c",))]
    kept = views.last_tables(rounds, 6)
    assert [(r.number, [t.table for t in r.tables]) for r in kept] == [(2, [2, 3, 4]), (3, [1, 2, 3])]
    assert kept[-1].byes == ("c",)
    assert views.last_tables(rounds, 100) == tuple(rounds)


def test_a_games_board_of_more_games_than_the_tournament_is_rated_on_its_own(db: Path, tmp_path: Path) -> None:
    """When the game holds games beyond the tournament's (here the evil game, of no tournament),
    the game's stored board is rated from all of them, stamped with all of them."""
    path = copy_of(db, tmp_path / "arena.db")
    with open_store(path) as store:
        views.store_views(store, REACTOR)
        every = store.stored_view(views.board_key(None, "reactor"))
        assert every is not None and every.stamp == (*views.scope_stamp(store, None, "reactor"), views.VIEWS_VERSION)
        assert every.stamp[0] == store.tournament_size(REACTOR)[0] + 1
        assert every.value == views.leaderboard(store, game="reactor").to_json()
        assert EVIL in [r["bot"] for r in every.value["board"]["rows"]]


def test_a_tournament_and_its_game_of_the_same_games_are_rated_once(db: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The Powder Keg tournament holds every Powder Keg game: after a game is added, its page and
    the game's leaderboard are made again from one rating, not two (a large first tournament of a
    game, rated again while it plays on, would otherwise cost twice the minutes)."""
    path = copy_of(db, tmp_path / "arena.db")
    monkeypatch.setattr(views, "INLINE_GAMES", 0)
    rate = views.leaderboard
    calls: list[tuple[Any, ...]] = []

    def counted(*args: Any, **kwargs: Any) -> views.Leaderboard:
        calls.append(tuple(kwargs.values()))
        return rate(*args, **kwargs)

    monkeypatch.setattr(views, "leaderboard", counted)
    with served_here(path, apart=False) as base:
        for url in (f"/tournaments/{KEG}", "/leaderboard/powder-keg"):
            assert "updating" not in get(base + url)[1]
        add_reactor_game(path, f"{KEG}/r9-t1-s0-g0", tournament=KEG)
        for url in (f"/tournaments/{KEG}", "/leaderboard/powder-keg"):
            assert "updating" in get(base + url)[1]
        boards = [poll(base + url, lambda b: "updating" not in b) for url in (f"/tournaments/{KEG}",
                                                                             "/leaderboard/powder-keg")]
    assert [c for c in calls if "reactor" not in c] == [(KEG, None)]  # (the Reactor board is stale anyway)
    assert rated_games(boards[0]) == rated_games(boards[1])
    assert "Leaderboard: all powder-keg games" in boards[1]


def test_a_view_stored_by_an_arena_that_computed_it_otherwise_is_made_again(db: Path, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored view carries the version of how views are computed: one of another version is
    not shown, however current its games (here as a large scope: its page does not wait for the
    rating)."""
    path = copy_of(db, tmp_path / "arena.db")
    with open_store(path) as store:
        kept = store.stored_view(views.board_key(REACTOR, None))
        assert kept is not None
        value = copy.deepcopy(kept.value)
        value["board"]["rows"][0]["games"] = 123456
        store.save_view(views.board_key(REACTOR, None), kept.stamp, value)  # read as it is: this version
        store.save_view(views.standings_key(REACTOR), (*kept.stamp[:3], views.VIEWS_VERSION + 1), {})
    monkeypatch.setattr(views, "INLINE_GAMES", 0)
    with served_here(path) as base:
        assert "123456" in get(base + f"/tournaments/{REACTOR}")[1]
    with open_store(path) as store:
        store.save_view(views.board_key(REACTOR, None), (*kept.stamp[:3], views.VIEWS_VERSION + 1), value)
    with served_here(path) as base:
        body = get(base + f"/tournaments/{REACTOR}")[1]
        assert "123456" not in body  # the placeholder, or the board rated here (a small database rates fast)
        body = poll(base + f"/tournaments/{REACTOR}", lambda b: 'id="standings"' in b and "http-equiv" not in b)
        assert "123456" not in body and 'id="leaderboard"' in body


def test_a_large_scope_is_rated_in_a_process_of_its_own(db: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena serve` rates a large scope in another process (rating 100,000 games in one of the
    server's threads held its GIL: pages took up to 0.44 s).  Here, rating in this process fails
    outright, and the board with the new game comes all the same: made elsewhere, as it would be
    made here."""
    path = copy_of(db, tmp_path / "arena.db")
    monkeypatch.setattr(views, "INLINE_GAMES", 0)
    with served_here(path) as base:
        url = base + f"/tournaments/{REACTOR}"
        rated = rated_games(get(url)[1])

        def no_rating(*args: object, **kwargs: object) -> None:
            raise RuntimeError("rated in the server's process")

        monkeypatch.setattr(views, "leaderboard", no_rating)
        monkeypatch.setattr(results, "standings", no_rating)
        add_reactor_game(path, f"{REACTOR}/r9-t1-s0-g0")
        assert "updating" in get(url)[1]
        body = poll(url, lambda b: "updating" not in b)
        assert rated_games(body) == rated + 1 and "failed" not in body
    monkeypatch.undo()
    with open_store(path, readonly=True) as store:
        expected = views.leaderboard(store, tournament=REACTOR)
    board = body.split('id="leaderboard"')[1].split("</table>")[0]
    assert re.findall(r'data-bot="([^"]+)"', board) == [r.bot for r in expected.rows]
    assert [f"{r.score:.2f}" in board for r in expected.rows] == [True] * len(expected.rows)


def test_a_failure_of_the_rating_process_is_said_on_the_page(db: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A rating process that dies (here: the database it was given can not be opened) leaves the
    page on its old board, saying that making it again failed and why."""
    from arena.web import apart

    path = copy_of(db, tmp_path / "arena.db")
    monkeypatch.setattr(views, "INLINE_GAMES", 0)
    real = apart.make_apart
    monkeypatch.setattr(apart, "make_apart", lambda db, key: real(str(tmp_path / "gone.db"), key))
    from arena.web import app

    monkeypatch.setattr(app, "make_apart", apart.make_apart)
    with served_here(path) as base:
        url = base + "/leaderboard/reactor"  # older than its games: made again at once
        body = poll(url, lambda b: "making them again failed" in b)
        assert "NoDatabase" in body or "no database" in body, body.split('as-of')[1][:300]
