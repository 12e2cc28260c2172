"""``arena serve`` and ``arena report`` (issue 19) over HTTP, and the replay viewer's frames.

A real server (``arena serve`` in a process of its own, on a real port) over a database made by
two real tournaments of the bundled bots; the browser tests are in test_web_browser.py."""

from __future__ import annotations

import copy
import hashlib
import html
import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from arena import ratings as rating
from arena.core.faults import FaultRecord
from arena.games import REGISTRY, get_game
from arena.games.selfplay import SelfPlaySpec, iter_records
from arena.storage import GameRow, open_store, seat_results
from arena.web.render import script_json
from arena.web.replay import frames, seat_view
from webtools import KEG, REACTOR, arena, build_db, get, served

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
    folder = tmp_path_factory.mktemp("web")
    path = build_db(folder)
    add_evil_game(path)
    return path


@pytest.fixture(scope="module")
def server(db: Path):
    with served(db) as (base, _):
        yield base


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
