"""The web pages in a real browser (issue 19): headless Chromium (Debian's, driven by Playwright)
against ``arena serve`` on a database made by real tournaments, and a static report opened from
disk.  Skipped, with one line saying how to get them, where Chromium or Playwright is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from arena.games import get_game
from arena.storage import open_store
from arena.web.replay import frames
from test_web import EVIL, EVIL_STDERR, add_evil_game
from webtools import CHROMIUM, KEG, REACTOR, arena, browser_missing, served, shared_db, tournament_file
from common import BOT_DIR

missing = browser_missing()
if missing and os.environ.get("CI"):
    # CI installs both (.ci/run): a CI without them would skip these tests and still pass.
    raise RuntimeError(f"CI must run the browser tests: {missing}")
if missing:
    pytest.skip(missing, allow_module_level=True)

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = shared_db(tmp_path_factory, "webui")
    add_evil_game(path)
    return path


@pytest.fixture(scope="module")
def server(db: Path):
    with served(db) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, errors  # no page had a script error


def test_the_leaderboard_shows_the_bots_in_order_and_a_click_opens_a_bot(db: Path, server: str, page: Page) -> None:
    rows = json.loads(arena("ratings", "--tournament", REACTOR, "--db", str(db), "--json").stdout)
    page.goto(f"{server}/tournaments/{REACTOR}")
    shown = page.locator("#leaderboard tbody tr td:nth-child(2)").all_inner_texts()
    assert shown == [r["bot"] for r in rows]
    expect(page.locator("#crosstable td.heat").first).to_be_visible()
    page.locator("#leaderboard tbody tr").nth(1).locator("a.bot").click()
    expect(page.locator("#bot-name")).to_have_text(rows[1]["bot"])
    expect(page.locator("#seats tbody tr").first).to_be_visible()
    expect(page.locator("#rating-chart")).to_be_visible()
    # Chart.js drew the history (the vendored file ran: it made a chart on the canvas).
    page.wait_for_function("() => typeof Chart !== 'undefined' && Chart.getChart('rating-chart') !== undefined")
    assert page.evaluate("() => Chart.getChart('rating-chart').data.datasets.length") == 3


def reactor_game(db: Path) -> tuple[str, dict]:
    with open_store(db, readonly=True) as store:
        gid = store.games(tournament=REACTOR)[-1].id
        return gid, frames(store.game_record(gid))


def test_the_replay_viewer_steps_and_shows_the_meter(db: Path, server: str, page: Page) -> None:
    gid, data = reactor_game(db)
    meters = [f["table"]["meter"] for f in data["frames"]]
    page.goto(f"{server}/games/{quote(gid)}")
    expect(page.locator("#step")).to_have_text(f"0 / {len(meters) - 1}")
    expect(page.locator("#meter")).to_have_text(str(meters[0]))
    for _ in range(5):
        page.click("#next")
    expect(page.locator("#step")).to_have_text(f"5 / {len(meters) - 1}")
    expect(page.locator("#meter")).to_have_text(str(meters[5]))
    page.click("#prev")
    expect(page.locator("#meter")).to_have_text(str(meters[4]))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step")).to_have_text(f"6 / {len(meters) - 1}")
    expect(page.locator("#meter")).to_have_text(str(meters[6]))
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#meter")).to_have_text(str(meters[5]))
    mid = len(meters) // 2
    page.locator("#slider").fill(str(mid))
    expect(page.locator("#meter")).to_have_text(str(meters[mid]))
    page.keyboard.press("End")
    expect(page.locator("#step")).to_have_text(f"{len(meters) - 1} / {len(meters) - 1}")
    expect(page.locator("#log li").last).to_contain_text("end:")
    # The omniscient view shows every hand as cards, and the pile's order.
    page.keyboard.press("Home")
    for seat, hand in enumerate(data["frames"][0]["hands"]):
        assert page.locator(f"#hand-{seat} .card").all_inner_texts() == hand


def test_the_per_seat_view_hides_the_other_hands(db: Path, server: str, page: Page) -> None:
    gid, data = reactor_game(db)
    page.goto(f"{server}/games/{quote(gid)}")
    page.select_option("#view", "1")
    first = data["frames"][0]
    for seat, hand in enumerate(first["hands"]):
        cards = page.locator(f"#hand-{seat} .card")
        if seat == 1:
            assert cards.all_inner_texts() == hand
            expect(page.locator(f"#hand-{seat}")).to_have_attribute("data-shown", "cards")
        else:
            assert cards.all_inner_texts() == [""] * len(hand)  # backs only
            expect(page.locator(f"#hand-{seat}")).to_have_attribute("data-shown", "backs")
    # The events are the seat's: another seat's dealt cards are not in its log.
    log = page.locator("#log").inner_text()
    assert "seen by" not in log
    # At the seat's first decision it sees its request: the legal actions and its answer.
    first_turn = next(i for i, f in enumerate(data["frames"]) if f["to_move"] and f["to_move"]["seat"] == 1)
    page.locator("#slider").fill(str(first_turn))
    expect(page.locator("#request")).to_contain_text("legal actions")
    expect(page.locator("#request .answer")).to_contain_text("answered:")


def test_the_powder_keg_viewer_shows_the_pile(db: Path, server: str, page: Page) -> None:
    with open_store(db, readonly=True) as store:
        gid = store.games(tournament=KEG)[0].id
        data = frames(store.game_record(gid))
    page.goto(f"{server}/games/{quote(gid)}")
    piles = [f["table"]["pile"] for f in data["frames"]]
    expect(page.locator("#pile-count")).to_have_text(str(piles[0]))
    assert page.locator("#pile-order .card").all_inner_texts() == data["frames"][0]["pile"]
    # Each special card carries its name from the game's own list (Game.card_names); a number card none.
    names = get_game("powder-keg").card_names
    for code in set(data["frames"][0]["pile"]):
        card = page.locator(f'#pile-order .card[data-card="{code}"]').first
        if code in names:
            expect(card).to_have_attribute("title", names[code])
        else:
            assert card.get_attribute("title") is None
    last = len(piles) - 1
    page.keyboard.press("End")
    expect(page.locator("#pile-count")).to_have_text(str(piles[last]))
    page.select_option("#view", "0")
    expect(page.locator("#pile-order")).to_have_count(0)  # a seat never sees the pile's order
    # The match's points before this game, for each seat.
    scores = data["match"]["scores"]
    for seat, points in enumerate(scores):
        expect(page.locator(f"#points-{seat}")).to_contain_text(f"{points} of 2 point(s)")


def test_bot_strings_are_text_and_nothing_runs(server: str, page: Page) -> None:
    for url in ("/", "/leaderboard/reactor", "/games", "/games/evil-game-1", "/bots/" + quote(EVIL, safe="")):
        page.goto(server + url)
        assert page.evaluate("() => window.__xss") is None, url
        assert EVIL in page.locator("body").inner_text(), url  # shown as the text it is
    page.goto(server + "/bots/" + quote(EVIL, safe=""))
    page.locator("details summary").first.click()
    assert EVIL_STDERR in page.locator("pre.stderr").first.inner_text()
    assert page.evaluate("() => window.__xss") is None


def test_the_live_page_updates_while_a_run_plays(tmp_path: Path, page: Page) -> None:
    bots = {"a": str(BOT_DIR / "random_bot.py"), "b": str(BOT_DIR / "random_bot.py"),
            "c": str(BOT_DIR / "random_bot.py")}
    spec = tournament_file(tmp_path, "live", "powder-keg", bots, games=20, points=3)
    # One match at a time, so that the run lasts long enough to be watched.
    spec.write_text(spec.read_text().replace("seed = 7", "seed = 7\nconcurrent = 1"))
    db = tmp_path / "live.db"
    run = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(spec), "--db", str(db)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not db.exists() or not _tournament_started(db):
            assert run.poll() is None, run.stderr.read() if run.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.1)
        with served(db) as (base, _):
            page.goto(f"{base}/tournaments/live")
            if page.locator("#progress-status").inner_text() == "finished":
                pytest.fail("the run ended before the page could watch it; make it longer")
            expect(page.locator("#progress-status")).to_have_text("running")
            page.evaluate("() => { window.__same_page = true; }")
            before = page.locator("#progress-text").inner_text()
            expect(page.locator("#progress-text")).not_to_have_text(before, timeout=60_000)
            assert page.evaluate("() => window.__same_page") is True  # updated in place, no reload
            run.wait(timeout=240)
            # Once the run ends the page reloads itself with the final standings.
            expect(page.locator("#progress-status")).to_have_text("finished", timeout=30_000)
            expect(page.locator("#leaderboard tbody tr")).to_have_count(3)
    finally:
        if run.poll() is None:
            run.terminate()
            run.wait(timeout=30)


def _tournament_started(db: Path) -> bool:
    try:
        with open_store(db, readonly=True) as store:
            return any(t.id == "live" for t in store.tournaments())
    except Exception:  # the file is there before its schema is
        return False


def test_the_report_works_from_disk_with_no_network(db: Path, tmp_path: Path, browser: Browser) -> None:
    out = tmp_path / "report"
    arena("report", REACTOR, "--html", str(out), "--db", str(db))
    context = browser.new_context(offline=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((out / "index.html").as_uri())
    assert page.locator("#leaderboard tbody tr").count() == 3
    page.locator("#leaderboard a.bot").first.click()
    expect(page.locator("#rating-chart")).to_be_visible()
    page.wait_for_function("() => typeof Chart !== 'undefined' && Chart.getChart('rating-chart') !== undefined")
    page.go_back()
    page.locator(".table-games a.gid").first.click()
    expect(page.locator("#meter")).to_be_visible()
    page.click("#next")
    expect(page.locator("#step")).to_contain_text("1 / ")
    context.close()
    assert not errors, errors
