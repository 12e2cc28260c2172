"""What the pages of ``arena serve`` show beyond a plain round-robin (issue 19): a Swiss's
tiebreaks, a leaderboard's faults and pair-separation marks, a tournament a kill interrupted,
a bot's versions, and a database served from a folder that can not be written.

A real server on a real database made by a real Swiss: five bundled random bots and one that
crashes in every game, at tables of two for three rounds (one bye a round)."""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from arena import results
from arena.storage import open_store
from arena.web import views
from common import RANDOM, ROOT
from webtools import arena, free_port, get, served

CRASHER = str(ROOT / "tests" / "bots" / "zoo_crash_mid.py")  # crashes on its third decision, every game
SWISS = "web-swiss"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("web-swiss")
    spec = folder / "swiss.toml"
    spec.write_text(f'name = "{SWISS}"\ngame = "reactor"\nformat = "swiss"\nseats = 2\nrounds = 3\nseed = 5\n'
                    '[sandbox]\nmode = "none"\n'
                    + "".join(f'[[bots]]\nname = "p{i}"\npath = "{RANDOM}"\n' for i in range(4))
                    + f'[[bots]]\nname = "crasher"\npath = "{CRASHER}"\n')
    path = folder / "arena.db"
    arena("run", str(spec), "--db", str(path), "--quiet")
    return path


@pytest.fixture(scope="module")
def server(db: Path):
    with served(db) as (base, _):
        yield base


def cells(row: str) -> list[str]:
    """The text of each cell of one table row."""
    return [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def rows_of(body: str, table_id: str) -> list[list[str]]:
    table = body.split(f'id="{table_id}"')[1].split("</table>")[0]
    return [cells(r) for r in re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("<tbody>")[1], re.S)]


def test_a_swiss_page_shows_its_tiebreaks(db: Path, server: str) -> None:
    """The standings of a Swiss (docs: points, then Buchholz, then median Buchholz) with each
    bot's Buchholz, median Buchholz and byes as `arena standings` computes them, in its order."""
    with open_store(db, readonly=True) as store:
        expected = results.standings(store, SWISS)
    assert expected.format == "swiss" and sum(r.byes for r in expected.rows) == 3  # one bye a round
    status, body = get(server + f"/tournaments/{SWISS}")
    assert status == 200
    head = body.split('id="standings"')[1].split("</thead>")[0]
    assert re.findall(r"<th[^>]*>([^<]+)</th>", head) == [
        "rank", "bot", "points", "Buchholz", "median Buchholz", "byes", "rounds", "games", "wins", "mean place"]
    shown = rows_of(body, "standings")
    assert [r[1] for r in shown] == [r.bot for r in expected.rows]
    for line, row in zip(shown, expected.rows, strict=True):
        assert line[0] == str(row.rank) and line[2] == f"{row.points:.2f}"
        assert line[3:6] == [f"{row.buchholz:.2f}", f"{row.median_buchholz:.2f}", str(row.byes)]
        assert line[6:9] == [str(row.rounds), str(row.games), str(row.wins)]
    tiebreaks = ", then ".join(expected.tiebreaks[1:]).replace("_", " ")
    assert "buchholz" in tiebreaks and f"ties broken by {tiebreaks}." in body
    assert "3 of 3 round(s) played." in body
    assert body.count("byes: ") == 3  # each round's sitter-out is named


def test_the_leaderboard_shows_faults_and_the_pairs_separation(db: Path, server: str) -> None:
    """Each line's faults by kind and its mark against the next bot down (separated, tied or
    open, with its probability) are the board's, as `arena ratings` reports them."""
    with open_store(db, readonly=True) as store:
        board = views.leaderboard(store, tournament=SWISS).board
    assert board is not None
    rows = {r.bot: r for r in board.rows}
    assert rows["crasher"].faults.get("crash", 0) == rows["crasher"].games > 0  # a fault in every game
    assert rows["crasher"].rank == len(rows)  # it forfeits all of them
    cli = {r["bot"]: r for r in json.loads(arena("ratings", "--tournament", SWISS, "--db", str(db), "--json").stdout)}
    status, body = get(server + f"/tournaments/{SWISS}")
    assert status == 200
    shown = rows_of(body, "leaderboard")
    assert [line[1] for line in shown] == [r.bot for r in board.rows] == list(cli)
    marks = {"separated": ">", "tied": "=", "open": "?"}
    for line, row in zip(shown, board.rows, strict=True):
        faults, versus = line[7], line[8]
        if row.faults:
            assert faults.split() == [w for kind, n in row.faults.items() for w in (kind, str(n))]
        else:
            assert faults == "–"
        if row.next_status is None:  # the last line has no next bot
            assert row is board.rows[-1] and versus == ""
        else:
            assert versus.split() == [marks[row.next_status], row.next_status, "p", f"{row.p_better_than_next:.2f}"]
            assert row.next_status == cli[row.bot]["next_status"]
    assert re.search(r'class="mark mark-(separated|tied|open)"', body)


def test_an_interrupted_tournament_says_so_and_how_to_resume(db: Path, tmp_path: Path) -> None:
    """A run killed mid-tournament leaves it "running" in the database with no process playing
    it: the page and the live-progress endpoint call it interrupted, and say to run the file again."""
    path = tmp_path / "arena.db"
    with contextlib.closing(sqlite3.connect(db)) as src, contextlib.closing(sqlite3.connect(path)) as dst:
        src.backup(dst)
        dst.execute("UPDATE tournaments SET status = 'running', finished = NULL WHERE id = ?", (SWISS,))
        dst.commit()  # what a SIGKILL between two games leaves
    with served(path) as (base, _):
        status, body = get(base + f"/tournaments/{SWISS}")
        assert status == 200
        progress = body.split('id="progress"')[1].split("</div>")[0]
        assert 'data-status="interrupted"' in progress and ">interrupted</span>" in progress
        assert "run its file again to resume it" in progress
        status, answer = get(base + f"/api/tournaments/{SWISS}/progress")
        assert status == 200 and json.loads(answer)["status"] == "interrupted"
        assert "updating live" not in body


def test_a_bots_page_lists_its_versions(db: Path, tmp_path: Path) -> None:
    """Every version of a bot, the newest last, with its file, the start of its sha256 and its
    command (a new file under the same name is a new version)."""
    path = tmp_path / "arena.db"
    with contextlib.closing(sqlite3.connect(db)) as src, contextlib.closing(sqlite3.connect(path)) as dst:
        src.backup(dst)
    with open_store(path) as store:
        store.add_bot_version("p1", "reactor", "better.py", b"# a second version\n", ["python3", "better.py"],
                              make_current=True)
        versions = store.bot_history("p1")
    assert len(versions) == 2
    with served(path) as (base, _):
        status, body = get(base + "/bots/p1")
    assert status == 200
    shown = rows_of(body, "versions")
    assert [line[0] for line in shown] == [str(v.version) for v in versions] == ["1", "2"]
    assert [line[1] for line in shown] == ["random_bot.py", "better.py"]
    assert [line[2] for line in shown] == [v.sha256[:12] for v in versions]
    assert shown[1][4] == "python3 better.py"


READ_ONLY_MOUNT = 'set -e; mount --bind "$1" "$1"; mount -o remount,ro,bind "$1"; shift; exec "$@"'


@pytest.mark.skipif(os.geteuid() != 0, reason="a read-only mount needs root")
def test_serve_reads_a_database_in_a_folder_that_can_not_be_written(db: Path, tmp_path: Path) -> None:
    """A published copy on a read-only mount (no -shm file can be made beside it): `arena serve`
    serves every page of it, and nothing is written there."""
    folder = tmp_path / "published"
    folder.mkdir()
    with contextlib.closing(sqlite3.connect(db)) as src, \
            contextlib.closing(sqlite3.connect(folder / "arena.db")) as dst:
        src.backup(dst)
    before = sorted(p.name for p in folder.iterdir())
    assert before == ["arena.db"]
    probe = subprocess.run(["unshare", "-m", "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder), "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no read-only mount here: {probe.stderr.strip()}")
    port = free_port()
    server = subprocess.Popen(["unshare", "-m", "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder), sys.executable,
                               "-m", "arena.cli", "serve", "--db", str(folder / "arena.db"), "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        from common import wait_until

        def answers() -> bool:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            try:
                return get(base + "/")[0] == 200
            except OSError:
                return False

        wait_until(answers, "arena serve to answer")
        for url in ("/", f"/tournaments/{SWISS}", "/leaderboard/reactor", "/bots/p0", "/games",
                    f"/api/tournaments/{SWISS}/progress"):
            status, body = get(base + url)
            assert status == 200, (url, body[:500])
        status, body = get(base + f"/tournaments/{SWISS}")
        assert 'id="leaderboard"' in body and 'id="standings"' in body
        gid = re.search(r'href="/games/([^"]+)"', body).group(1)  # type: ignore[union-attr]
        assert get(base + "/games/" + gid)[0] == 200
        assert get(base + "/bots/" + quote("crasher"))[0] == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert sorted(p.name for p in folder.iterdir()) == before
