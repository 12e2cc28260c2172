"""The command line as users meet it: Typer's runner for the commands, the real console script
for what a user sees on bad input (one line, a non-zero status, never a traceback)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import REGISTRY
from arena.games.record import replay
from arena.jsonio import read_jsonl

ROOT = Path(__file__).resolve().parent.parent
RANDOM = str(ROOT / "bots" / "random_bot.py")
runner = CliRunner()


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """The real entry point, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=ROOT)


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_selfplay_is_byte_for_byte_reproducible(tmp_path: Path, game: str) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    variants = ["--variant", "short-hands", "--variant", "five-different"] if game == "powder-keg" else []
    for out in (a, b):
        ok("selfplay", game, "--players", "3", "--games", "2", "--seed", "9", *variants, "--out", str(out))
    assert a.read_bytes() == b.read_bytes()
    records = list(read_jsonl(a))
    assert len(records) >= 2
    for record in records:
        replay(REGISTRY[game], record)
    if game == "powder-keg":  # each game of a match is its own record; a match runs to 3 points
        assert max(max(r["match"]["scores"]) for r in records) >= 2
        assert records[0]["config"]["variants"] == ["short-hands", "five-different"]


def test_selfplay_heuristic_bots(tmp_path: Path) -> None:
    out = tmp_path / "h.jsonl"
    ok("selfplay", "reactor", "-n", "4", "-k", "3", "--bot", "heuristic", "--bot", "random", "--out", str(out))
    assert [r["seats"] for r in read_jsonl(out)][0] == ["heuristic", "random", "heuristic", "random"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["selfplay", "chess"], "unknown game 'chess'"),
        (["selfplay", "reactor", "--players", "7"], "2-6 players, not 7"),
        (["selfplay", "powder-keg", "--players", "6"], "2-5 players, not 6"),
        (["selfplay", "powder-keg", "--variant", "turbo"], "no variant 'turbo'"),
        (["selfplay", "reactor", "--bot", "genius"], "no built-in bot 'genius'"),
        (["selfplay", "reactor", "--games", "0"], "--games"),
        (["selfplay", "reactor", "--players", "many"], "--players"),
        (["play", "reactor", RANDOM], "at least two bots"),
        (["play", "reactor", RANDOM, "no/such/bot.py"], "no bot at 'no/such/bot.py'"),
        (["check", RANDOM, "--game", "go"], "unknown game 'go'"),
        (["run", "no-such-file.toml"], "no tournament file"),
        (["ratings", "--format", "xml"], "--format"),
        (["frobnicate"], "No such command"),
    ],
)
def test_bad_input_is_one_line_and_status_2(args: list[str], words: str) -> None:
    result = arena(*args)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], result.stderr


def test_unknown_records_are_one_line_and_status_1(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    for args, words in ((["replay", "nope", "--db", db], "no game nope"),
                        (["bots", "show", "ghost", "--db", db], "ghost"),
                        (["ratings", "--tournament", "nope", "--db", db], "no tournament 'nope'")):
        result = arena(*args)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr, result.stderr


def test_every_command_has_help_with_an_example() -> None:
    commands = ["selfplay", "play", "check", "run", "ratings", "games", "replay", "bots add", "bench"]
    for command in commands:
        text = ok(*command.split(), "--help")
        assert "Example" in text, command
    assert "schema" in ok("--help") and "tournaments" in ok("--help")


def test_schema_is_json_schema_of_every_message() -> None:
    schema = json.loads(ok("schema"))
    assert schema["$schema"].startswith("http://json-schema.org/draft-07")
    assert {d["$ref"].rsplit("/", 1)[1] for d in schema["oneOf"]} >= {"hello", "action", "request", "game_over"}


def test_play_and_check(tmp_path: Path) -> None:
    out = json.loads(ok("play", "reactor", RANDOM, RANDOM, RANDOM, "--games", "2", "--seed", "3", "--json", "--sandbox", "none"))
    assert [b["bot"] for b in out["bots"]] == ["random_bot#0", "random_bot#1", "random_bot#2"]
    assert sum(b["match_wins"] for b in out["bots"]) == 2
    assert [b["starts"] for b in out["bots"]] == [1, 1, 1]  # once per bot for all the matches
    text = ok("check", RANDOM, "--game", "powder-keg", "--sandbox", "none")
    assert text.startswith("OK: random_bot as a powder-keg bot")
    assert "games at once: 16 offered, so its self-play games were interleaved; requests and answers in batches" in text
    bad = runner.invoke(app, ["check", str(ROOT / "tests/bots/zoo_illegal.py"), "--game", "reactor", "--sandbox", "none"])
    assert bad.exit_code == 1 and "FAILED" in bad.output and "fault: illegal" in bad.output
    assert "games at once: 1 offered" in bad.output and "batches" not in bad.output


def test_registry_tournament_ratings_games_replay(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    assert "registered r1 version 1" in ok("bots", "add", RANDOM, "--name", "r1", "--game", "reactor", "--db", db, "--sandbox", "none")
    again = ok("bots", "add", RANDOM, "--name", "r1", "--game", "reactor", "--db", db, "--sandbox", "none")
    assert "version 1" in again  # same content, same version
    changed = tmp_path / "changed.py"
    changed.write_text(Path(RANDOM).read_text() + "\n# changed\n")
    assert "version 2" in ok("bots", "add", str(changed), "--name", "r1", "--game", "reactor", "--db", db, "--sandbox", "none")
    assert "r1" in ok("bots", "list", "--db", db)
    shown = json.loads(ok("bots", "show", "r1", "--db", db, "--json"))
    assert shown["version"] == 2 and len(shown["sha256"]) == 64

    spec = tmp_path / "t.toml"
    spec.write_text(
        'name = "cli"\ngame = "reactor"\nseats = 3\nseed = 1\n[sandbox]\nmode = "none"\n'
        '[[bots]]\nname = "r1"\n'  # registered
        + "".join(f'[[bots]]\nname = "p{i}"\npath = "{RANDOM}"\n' for i in range(2))
    )
    text = ok("run", str(spec), "--db", db, "--quiet")
    assert "3 games played now, 0 already stored" in text and "mean_place" in text
    assert "0 games played now, 3 already stored" in ok("run", str(spec), "--db", db, "--quiet")

    rows = list(csv.DictReader(io.StringIO(ok("ratings", "--db", db, "--format", "csv"))))
    assert {r["bot"] for r in rows} == {"r1", "p0", "p1"} and all(r["games"] == "3" for r in rows)
    assert json.loads(ok("ratings", "--db", db, "--format", "json", "--tournament", "cli"))[0]["rank"] == 1
    assert ok("ratings", "--db", db, "--format", "markdown").startswith("| rank")

    listing = ok("games", "--db", db, "--tournament", "cli")
    game_id = listing.split()[0]
    assert len(listing.strip().splitlines()) == 3
    assert len(ok("games", "--db", db, "--bot", "r1").strip().splitlines()) == 3
    shown_game = ok("replay", game_id, "--db", db)
    assert "decides: play" in shown_game and "seen by" in shown_game and "result: 1." in shown_game
    record = json.loads(ok("replay", game_id, "--db", db, "--json"))
    assert record["game_id"] == game_id
    replay(REGISTRY["reactor"], record)


def test_replay_of_a_tampered_record_is_a_one_line_error(tmp_path: Path) -> None:
    """A record edited outside arena no longer replays: `arena replay` says so in one line."""
    import sqlite3

    from arena.storage import decode_record, encode_record

    db = tmp_path / "arena.db"
    spec = tmp_path / "t.toml"
    spec.write_text('name = "tamper"\ngame = "reactor"\nseats = 2\nseed = 1\nrotations = false\n'
                    '[sandbox]\nmode = "none"\n'
                    + "".join(f'[[bots]]\nname = "p{i}"\npath = "{RANDOM}"\n' for i in range(2)))
    ok("run", str(spec), "--db", str(db), "--quiet")
    with sqlite3.connect(db) as conn:
        game_id, blob = conn.execute("SELECT id, record FROM games").fetchone()
        record = decode_record(blob)
        record["decisions"] = record["decisions"][:-2]
        conn.execute("DROP TRIGGER games_no_update")  # what a hand edit of the file would bypass
        conn.execute("UPDATE games SET record = ? WHERE id = ?", (encode_record(record), game_id))
    done = arena("replay", game_id, "--db", str(db))
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
