"""The README's screenshots of the web pages, made from a bundled tournament so that they stay true.

    python scripts/screenshots.py [--out docs/screenshots] [--db PATH]

Plays ``tournaments/quickstart-reactor.toml`` into a fresh database (or uses ``--db``, which must
hold that tournament), starts ``arena serve`` on it, and has headless Chromium (Debian's
``/usr/bin/chromium``, driven by Playwright) take the leaderboard and the replay viewer.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

from arena.web.serving import served

ROOT = Path(__file__).resolve().parent.parent
TOURNAMENT = "quickstart-reactor"
CHROMIUM = "/usr/bin/chromium"


def arena(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "arena.cli", *args], check=True, cwd=ROOT)


def shoot(base: str, db: Path, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    from arena.storage import open_store

    made = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
        page.goto(f"{base}/tournaments/{TOURNAMENT}")
        page.locator("h1").wait_for()
        path = out / "leaderboard.png"
        page.screenshot(path=path, clip={"x": 0, "y": 0, "width": 1280, "height": 800})
        made.append(path)
        with open_store(db, readonly=True) as store:
            gid = store.games(tournament=TOURNAMENT)[-1].id
        page.goto(f"{base}/games/{quote(gid)}")
        page.locator("#meter").wait_for()
        for _ in range(9):  # a few decisions in: cards on the table, events in the log
            page.keyboard.press("ArrowRight")
        path = out / "replay.png"
        page.screenshot(path=path, clip={"x": 0, "y": 0, "width": 1280, "height": 720})
        made.append(path)
        page.select_option("#view", "1")
        path = out / "replay-seat.png"
        page.screenshot(path=path, clip={"x": 0, "y": 0, "width": 1280, "height": 720})
        made.append(path)
        browser.close()
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--db", type=Path, help="a database that holds quickstart-reactor (default: play it)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "arena.db"
        if args.db is None:
            arena("run", str(ROOT / "tournaments" / f"{TOURNAMENT}.toml"), "--db", str(db))
        with served(db) as base:
            for path in shoot(base, db, args.out):
                print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()
