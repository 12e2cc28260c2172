"""The command line as users meet it: Typer's runner for the commands, the real console script
for what a user sees on bad input (one line, a non-zero status, never a traceback)."""

from __future__ import annotations

import contextlib
import csv
import io
import hashlib
import json
import shlex
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import ConfigError
from arena.games import REGISTRY
from arena.games.record import replay
from arena.cli.jsonio import read_jsonl
from arena.core.names import NAME_RULE
from arena.storage import backends, open_store
from arena.tournament.file import load_tournament

from common import PATIENCE_S, RANDOM, ROOT, InterfaceOnly, wait_until
runner = CliRunner()


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """The real entry point, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=ROOT)


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def one_line_error(result: subprocess.CompletedProcess[str], status: int, *words: str) -> str:
    """The CLI's contract for an error: one ``error:`` line on stderr, the given status."""
    assert result.returncode == status, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


def random_tournament(tmp_path: Path, name: str = "t", bots: int = 2, seats: int = 2, extra: str = "",
                      prefix: str = "p") -> Path:
    """A small tournament file of random bots without a sandbox (2 bots: 2 games), named
    ``{prefix}0``, ``{prefix}1``, ..."""
    spec = tmp_path / f"{name}.toml"
    spec.write_text(f'name = "{name}"\ngame = "reactor"\nseats = {seats}\nseed = 1\n{extra}\n[sandbox]\nmode = "none"\n'
                    + "".join(f'[[bots]]\nname = "{prefix}{i}"\npath = "{RANDOM}"\n' for i in range(bots)))
    return spec


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


def test_matches_is_spelt_alike_in_every_command(tmp_path: Path) -> None:
    """`check --matches` counted matches where `play` and `selfplay` said `--games`: all three
    take --matches (and -k) now, and --games still works where it did."""
    files = [tmp_path / f"{flag}.jsonl" for flag in ("--matches", "--games", "-k")]
    for flag, out in zip(("--matches", "--games", "-k"), files):
        ok("selfplay", "reactor", flag, "2", "--seed", "5", "--out", str(out))
    assert files[0].read_bytes() == files[1].read_bytes() == files[2].read_bytes()
    assert len(list(read_jsonl(files[0]))) == 2
    played = json.loads(ok("play", "reactor", RANDOM, RANDOM, "--matches", "2", "--json", "--sandbox", "none"))
    assert sum(b["match_wins"] for b in played["bots"]) == 2
    for command in (["selfplay"], ["play"], ["check"]):
        assert "--matches" in ok(*command, "--help")


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
        (["selfplay", "reactor", "--players", "2", "--bot", "random", "--bot", "random", "--bot", "strong"],
         "3 --bot options for 2 seats"),
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
    open_store(db).close()  # an empty database (read-only commands do not create one)
    for args, words in ((["replay", "nope", "--db", db], "no game nope"),
                        (["bots", "show", "ghost", "--db", db], "ghost"),
                        (["ratings", "--tournament", "nope", "--db", db], "no tournament 'nope'")):
        result = arena(*args)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr, result.stderr


def test_every_command_has_help_with_an_example() -> None:
    """Every command and group, found in the app itself, so a new command cannot be missed."""
    import typer.main

    def commands(group, prefix: tuple[str, ...] = ()):
        for name, command in group.commands.items():
            yield (*prefix, name)
            if hasattr(command, "commands"):
                yield from commands(command, (*prefix, name))

    found = list(commands(typer.main.get_command(app)))
    assert {("schema",), ("tournaments",), ("bots", "list"), ("bots", "show"), ("bots",)} <= set(found)
    for command in found:
        assert "Example: arena " in ok(*command, "--help"), command


def test_replay_help_example_is_a_real_game_id(tmp_path: Path) -> None:
    """The id in `arena replay --help` is one that `arena games` prints for a tournament of that name."""
    example = ok("replay", "--help").split("Example: arena replay ", 1)[1].split()[0]
    tournament = example.split("/")[0]
    db = str(tmp_path / "arena.db")
    ok("run", str(random_tournament(tmp_path, tournament, bots=3, seats=3)), "--db", db, "--quiet")
    assert example in ok("games", "--db", db).split()
    assert "result: 1." in ok("replay", example, "--db", db)


def test_selfplay_out_that_cannot_be_written_is_a_bad_argument(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "x.jsonl"
    one_line_error(arena("selfplay", "reactor", "--out", str(missing)), 2, str(missing), "no such file or directory")
    one_line_error(arena("selfplay", "reactor", "--out", str(tmp_path)), 2, str(tmp_path), "is a directory")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('name = "x"\ngame = ["reactor"]\n[[bots]]\nname = "a"', "'game'"),
        ('name = "x"\ngame = {a = 1}\n[[bots]]\nname = "a"', "'game'"),
        ('name = "x"\ngame = 3\n[[bots]]\nname = "a"', "'game'"),
        ('name = "x"\ngame = "reactor"\nformat = ["swiss"]\n[[bots]]\nname = "a"', "'format'"),
        ('name = ["x"]\ngame = "reactor"\n[[bots]]\nname = "a"', "'name'"),
        ('name = "x"\ngame = "reactor"\n[[bots]]\nname = {a = 1}', "'bots[0].name'"),
        ('name = "x"\ngame = "reactor"\nseats = 2\n[sandbox]\nmode = {a = 1}\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"',
         "'sandbox.mode'"),
    ],
)
def test_tournament_fields_of_the_wrong_type_are_field_errors(tmp_path: Path, text: str, field: str) -> None:
    """A list or a table where a name belongs is an error naming the field, not `unhashable type`."""
    spec = tmp_path / "t.toml"
    spec.write_text(text)
    with pytest.raises(ConfigError, match=re.escape("field " + field)):
        load_tournament(spec)
    one_line_error(arena("run", str(spec), "--db", str(tmp_path / "a.db")), 2, field)


def test_run_checks_the_format_before_playing(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    one_line_error(arena("run", str(random_tournament(tmp_path)), "--db", str(db), "--format", "xml"), 2,
                   "--format must be table, csv, json or markdown, not 'xml'")
    assert not db.exists()  # nothing was played


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["schema"], ["ratings"], ["games"]])
def test_output_that_cannot_be_written_is_one_line(tmp_path: Path, command: list[str]) -> None:
    """Standard output on a full disk: one line and status 1, not a traceback (twice, at exit)."""
    db = tmp_path / "a.db"
    assert runner.invoke(app, ["run", str(random_tournament(tmp_path)), "--db", str(db), "--quiet"]).exit_code == 0
    with open("/dev/full", "w") as full:
        args = command if command == ["schema"] else [*command, "--db", str(db)]
        done = subprocess.run([sys.executable, "-m", "arena.cli", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT)
    assert done.returncode == 1 and done.stderr == "error: No space left on device\n", done.stderr


def test_a_strict_tournament_without_bubblewrap_stops_before_it_starts(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`mode = "strict"` where bubblewrap is missing: one line at once, not a traceback per match
    after the tournament was stored."""
    from arena.sandbox import SandboxError, launch

    monkeypatch.setattr(launch, "sandbox_available", lambda: False)
    monkeypatch.setattr(launch.shutil, "which", lambda *a, **k: None)
    spec = tmp_path / "strict.toml"
    spec.write_text(random_tournament(tmp_path).read_text().replace('mode = "none"', 'mode = "strict"'))
    db = tmp_path / "a.db"
    done = runner.invoke(app, ["run", str(spec), "--db", str(db), "--quiet"])
    assert done.exit_code != 0 and isinstance(done.exception, SandboxError), done.output
    assert "apt-get install bubblewrap" in str(done.exception) and 'mode = "strict"' in str(done.exception)
    assert not db.exists()


@pytest.mark.parametrize("address", ["bogus", "inproc://x", "tcp://127.0.0.1:99999", "10.0.0.5:8786/x"])
def test_run_checks_the_cluster_address_before_playing(tmp_path: Path, address: str) -> None:
    """A --cluster value that names no scheduler is a bad argument: one line at once, nothing stored."""
    db = tmp_path / "a.db"
    one_line_error(arena("run", str(random_tournament(tmp_path)), "--db", str(db), "--cluster", address), 2,
                   "--cluster must be 'local' or a Dask scheduler's address", repr(address))
    assert not db.exists()


def test_scheduler_addresses_that_dask_takes_are_taken() -> None:
    from arena.execution.dask import check_address

    for address in ("local", "tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://sched.example.org:8786",
                    "tcp://[::1]:8786", "tcp://dask_scheduler:8786", "tcp://[fe80::1%eth0]:8786"):
        check_address(address)  # no UsageError


def test_a_run_refused_before_any_game_does_not_speak_of_stored_games(tmp_path: Path) -> None:
    """A bot name taken by the other game refuses the tournament before any game: the error says
    what to change, and does not claim that games were stored (as after a failure mid-run)."""
    db = tmp_path / "a.db"
    ok("run", str(random_tournament(tmp_path)), "--db", str(db), "--quiet")
    keg = tmp_path / "keg.toml"
    keg.write_text(random_tournament(tmp_path, "keg").read_text().replace('game = "reactor"', 'game = "powder-keg"'))
    line = one_line_error(arena("run", str(keg), "--db", str(db)), 1, "bot 'p0' is registered for reactor")
    assert "stored" not in line


def test_run_with_a_data_format_prints_only_the_data_on_stdout(tmp_path: Path) -> None:
    spec, db = str(random_tournament(tmp_path)), str(tmp_path / "a.db")
    done = runner.invoke(app, ["run", spec, "--db", db, "--quiet", "--format", "json"])
    assert done.exit_code == 0, done.output
    assert {row["bot"] for row in json.loads(done.stdout)} == {"p0", "p1"}
    assert "2 games played now, 0 already stored" in done.stderr
    again = runner.invoke(app, ["run", spec, "--db", db, "--quiet", "--format", "csv"])
    assert list(csv.reader(io.StringIO(again.stdout)))[0][:2] == ["rank", "bot"]
    assert "0 games played now, 2 already stored" in again.stderr
    table = runner.invoke(app, ["run", spec, "--db", db, "--quiet"])  # for people: all on stdout
    assert "0 games played now, 2 already stored" in table.stdout and "mean_place" in table.stdout


def test_bot_names_follow_one_rule(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    line = one_line_error(arena("bots", "add", RANDOM, "--name", "bad name!", "--game", "reactor", "--db", str(db)),
                          2, "--name 'bad name!'", NAME_RULE)
    assert "OK" not in line and not db.exists()  # refused before the bot was run or stored
    nowhere = tmp_path / "no-such-folder" / "a.db"
    result = arena("bots", "add", RANDOM, "--name", "good", "--game", "reactor", "--db", str(nowhere))
    one_line_error(result, 2, f"no folder {nowhere.parent}")
    assert "OK" not in result.stdout  # refused before the bot was run
    spec = tmp_path / "t.toml"
    spec.write_text('name = "x"\ngame = "reactor"\n[[bots]]\nname = "bad name!"')
    with pytest.raises(ConfigError) as info:
        load_tournament(spec)
    assert "must be " + NAME_RULE in str(info.value) and "required" not in str(info.value)


def test_every_bad_file_argument_is_status_2(tmp_path: Path) -> None:
    """Status 2 for a file named on the command line that is missing or unusable, whatever the command."""
    one_line_error(arena("bots", "add", "/nope.py", "--name", "x", "--game", "reactor", "--db", str(tmp_path / "a.db")),
                   2, "no bot file at /nope.py")
    malformed = tmp_path / "bad.toml"
    malformed.write_text('name = "x"\ngame = "reactor"\nseats = "four"\n[[bots]]\nname = "a"')
    one_line_error(arena("run", str(malformed)), 2, "field 'seats'")
    one_line_error(arena("run", str(tmp_path / "missing.toml")), 2, "no tournament file")
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_text("not a database\n" * 100)
    one_line_error(arena("games", "--db", str(not_a_db)), 2, str(not_a_db))


@pytest.mark.parametrize("command", [["ratings"], ["games"], ["replay", "r1-t1-s0-g0"], ["tournaments"],
                                     ["bots", "show", "x"], ["bots", "remove", "x"], ["bots", "rename", "x", "y"],
                                     ["standings", "t"], ["h2h", "a", "b"], ["crosstable"]])
def test_read_only_commands_need_an_existing_database(tmp_path: Path, command: list[str]) -> None:
    typo = tmp_path / "typo.db"
    one_line_error(arena(*command, "--db", str(typo)), 2, f"no database at {typo}")
    assert list(tmp_path.iterdir()) == []  # and none was created


@pytest.mark.parametrize("command", [["run", "FILE"], ["bots", "add", RANDOM, "--name", "x", "--game", "reactor"],
                                     ["ratings"], ["games"], ["replay", "r1-t1-s0-g0"], ["tournaments"],
                                     ["bots", "list"], ["bots", "show", "x"], ["standings", "t"],
                                     ["h2h", "a", "b"], ["crosstable"]])
def test_every_db_option_refuses_an_unknown_scheme_in_one_line(tmp_path: Path, command: list[str]) -> None:
    """--db is a location that the store's backends read: a scheme none of them has is a bad
    argument, refused before any work (no bot checked, nothing created)."""
    spec = random_tournament(tmp_path)
    args = [str(spec) if word == "FILE" else word for word in command]
    result = arena(*args, "--db", "postgres://db.example/arena")
    one_line_error(result, 2, "unknown storage scheme postgres:// in postgres://db.example/arena",
                   "known: sqlite://", "sqlite:///PATH")
    assert result.stdout == "" and list(tmp_path.iterdir()) == [spec]


def test_a_database_url_or_memory_as_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """sqlite:///PATH is the file PATH (relative, or absolute with a fourth slash); :memory: plays
    a tournament kept nowhere, its bots written out to a folder of its own (not .arena-bots in
    the folder the run started in)."""
    monkeypatch.chdir(tmp_path)
    spec = random_tournament(tmp_path, "u")
    assert "2 games played now, 0 already stored, in :memory:" in ok("run", str(spec), "--db", ":memory:", "--quiet")
    assert list(tmp_path.iterdir()) == [spec]
    ok("run", str(spec), "--db", f"sqlite:///{tmp_path / 'u.db'}", "--quiet")  # sqlite:////tmp/...
    listing = ok("games", "--db", "u.db", "--format", "json")
    assert len(json.loads(listing)) == 2
    assert ok("games", "--db", "sqlite:///u.db", "--format", "json") == listing
    assert "0 games played now, 2 already stored" in ok("run", str(spec), "--db", "SQLITE:///u.db", "--quiet")


def test_the_commands_ask_nothing_of_a_store_beyond_its_interface(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command that takes --db works on a backend that offers the Store interface and
    nothing else (tests/common.InterfaceOnly), and says what it says of the same database given
    as a file: another backend is a module and a line in the table, not an edit of the CLI."""
    monkeypatch.setitem(backends.BACKENDS, "interface", InterfaceOnly)
    db = tmp_path / "i.db"
    via = f"interface://{db}"
    assert "registered solo version 1" in ok("bots", "add", RANDOM, "--name", "solo", "--game", "reactor",
                                             "--db", via, "--sandbox", "none")
    assert "2 games played now" in ok("run", str(random_tournament(tmp_path, "i")), "--db", via, "--quiet")
    for command in (["ratings"], ["games"], ["tournaments"], ["bots", "list"], ["bots", "show", "p0"],
                    ["replay", "i/r1-t1-s0-g0"], ["standings", "i"], ["h2h", "p0", "p1"], ["crosstable"],
                    ["ratings", "--history"]):
        assert ok(*command, "--db", via) == ok(*command, "--db", str(db)), command


def test_a_run_refused_before_storing_anything_leaves_no_new_database(tmp_path: Path) -> None:
    """A tournament file naming an unregistered bot fails once the database is open; a new
    database it created is removed again (with its WAL and lock files), an existing one is kept."""
    spec = tmp_path / "t.toml"
    spec.write_text('name = "t"\ngame = "reactor"\nseats = 2\n[[bots]]\nname = "nobody"\n'
                    f'[[bots]]\nname = "p"\npath = "{RANDOM}"\n')
    db = tmp_path / "new.db"
    one_line_error(arena("run", str(spec), "--db", str(db)), 1, "no bot named 'nobody'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.toml"]
    open_store(str(db)).close()  # a database that was there before: never removed
    one_line_error(arena("run", str(spec), "--db", str(db)), 1, "no bot named 'nobody'")
    assert db.exists()


def test_unknown_filter_values_are_errors(tmp_path: Path) -> None:
    """An unknown game is a bad argument listing the games; an unknown tournament or bot is not
    in the database (status 1, as for `arena ratings --tournament`)."""
    db = str(tmp_path / "a.db")
    open_store(db).close()  # an empty database
    games = ", ".join(REGISTRY)
    for command in (["ratings", "--game", "chess"], ["bots", "list", "--game", "chess"]):
        one_line_error(arena(*command, "--db", db), 2, f"unknown game 'chess' (games: {games})")
    for command in (["games", "--tournament", "nope"], ["ratings", "--tournament", "nope"]):
        one_line_error(arena(*command, "--db", db), 1, "no tournament 'nope'")
    one_line_error(arena("games", "--bot", "nope", "--db", db), 1, "no bot named 'nope'")
    assert ok("bots", "list", "--game", "reactor", "--db", db).startswith("no reactor bots")  # a known game: no error


def test_json_option_of_run_ratings_and_tournaments(tmp_path: Path) -> None:
    spec, db = str(random_tournament(tmp_path, "js")), str(tmp_path / "a.db")
    done = runner.invoke(app, ["run", spec, "--db", db, "--quiet", "--json"])
    assert done.exit_code == 0 and len(json.loads(done.stdout)) == 2, done.output
    assert runner.invoke(app, ["ratings", "--db", db, "--json"]).stdout == ok("ratings", "--db", db, "--format", "json")
    assert ok("ratings", "--db", db, "--json", "--format", "json") == ok("ratings", "--db", db, "--json")
    [listed] = json.loads(ok("tournaments", "--db", db, "--json"))
    assert listed["id"] == "js"
    # Each bot's version as `bots show` numbers it (both are version 1), not its database row id.
    sha = hashlib.sha256(Path(RANDOM).read_bytes()).hexdigest()
    assert listed["spec"]["bot_versions"] == {name: {"version": 1, "sha256": sha} for name in ("p0", "p1")}
    for command in ("ratings", "run"):
        args = [command, *([spec] if command == "run" else []), "--db", db, "--json", "--format", "csv"]
        one_line_error(arena(*args), 2, "--json and --format csv")


@pytest.mark.parametrize("listing", [["games"], ["tournaments"], ["bots", "list"], ["ratings"]])
def test_every_listing_has_the_same_formats(tmp_path: Path, listing: list[str]) -> None:
    """`--format table|csv|json|markdown` and `--json` mean the same on every listing: the csv has
    the table's columns and rows, json the full records, and an empty listing stays parseable."""
    def out(*args: str) -> str:  # stdout alone: what a script reads
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result.stdout

    empty, db = str(tmp_path / "empty.db"), str(tmp_path / "a.db")
    ok("run", str(random_tournament(tmp_path, "fmt")), "--db", db, "--quiet")
    table = ok(*listing, "--db", db).strip().splitlines()
    rows = list(csv.DictReader(io.StringIO(out(*listing, "--db", db, "--format", "csv"))))
    assert len(rows) == len(table) - 1 >= 1 and table[0].split() == list(rows[0])
    assert [line.split()[0] for line in table[1:]] == [next(iter(r.values())) for r in rows]
    records = json.loads(out(*listing, "--db", db, "--json"))
    assert records == json.loads(out(*listing, "--db", db, "--format", "json")) and len(records) == len(rows)
    markdown = ok(*listing, "--db", db, "--format", "markdown").splitlines()
    assert markdown[0] == "| " + " | ".join(rows[0]) + " |" and len(markdown) == 2 + len(rows)
    one_line_error(arena(*listing, "--db", db, "--format", "xml"), 2, "--format must be")
    one_line_error(arena(*listing, "--db", db, "--json", "--format", "csv"), 2, "--json and --format csv")

    open_store(empty).close()  # a database with nothing in it: a hint for people, empty data for scripts
    assert json.loads(out(*listing, "--db", empty, "--format", "json")) == []
    assert len(out(*listing, "--db", empty, "--format", "csv").splitlines()) == 1
    assert ok(*listing, "--db", empty).startswith("no ")


def _terminal_sigint() -> None:
    """In the child, SIGINT as a terminal's shell leaves it: Python turns it into KeyboardInterrupt
    only if the process starts with SIGINT at its default (a test runner's worker may ignore it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_during_play_says_interrupted() -> None:
    """Typer hands Ctrl-C back as exit status 130, which `main` used to pass on in silence: a
    user saw the command end with no word of why."""
    command = [sys.executable, "-m", "arena.cli", "play", "reactor", RANDOM, RANDOM, "--games", "100000",
               "--sandbox", "none"]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_terminal_sigint)
    try:
        # Signalled once it has started its bots (so it is playing), not after a fixed 3 s: on a
        # loaded machine the interpreter could still be importing then, before the CLI was there
        # to say anything (issue 16).  100,000 matches take minutes: it is still playing.
        wait_until(lambda: proc.poll() is not None or any("random_bot.py" in c for c in descendants(proc.pid)),
                   "its bots to start", every=0.05)
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=PATIENCE_S)
    finally:
        if proc.poll() is None:  # a failed check must not leave it playing 100,000 matches
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    # 130, or killed by the SIGINT itself when it lands as the interpreter exits (seen on a loaded
    # machine): either way the user was told why it ended.
    assert proc.returncode in (130, -signal.SIGINT), err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "interrupted", err


def descendants(pid: int) -> list[str]:
    """The command lines of every process below ``pid`` (its children, theirs, ...)."""
    parent, cmdline = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            child = int(stat.parent.name)
            parent[child] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline[child] = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
    below, found = {pid}, True
    while found:
        found = {child for child, ppid in parent.items() if ppid in below and child not in below}
        below |= found
    return [cmdline[p] for p in below - {pid}]


def bot_folders(prefix: str) -> set[Path]:
    """The working folders, in the temp folder, of the bots of a `random_tournament` whose bots'
    names start with ``prefix`` (unique to a test: tests running in parallel make their own)."""
    return set(Path(tempfile.gettempdir()).glob(f"arena-{prefix}[0-9]-*"))


def run_until_games_are_stored(tmp_path: Path, name: str, workers: int,
                               cluster: bool = False) -> tuple[subprocess.Popen, list[str], Path]:
    """`arena run` of a 30-game tournament (one table, 10 games per seat rotation, so bots start
    only at each job's start) in a session of its own, once it has stored 6 games.  Its bots are
    named after the tournament (``{name}0``, ...)."""
    spec = random_tournament(tmp_path, name, bots=3, seats=3, extra="games = 10", prefix=name)
    db = tmp_path / "a.db"
    command = [sys.executable, "-m", "arena.cli", "run", str(spec), "--db", str(db), "--quiet", "--workers", str(workers)]
    if cluster:
        command += ["--cluster", "local"]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_terminal_sigint)

    def stored() -> int:
        try:
            with sqlite3.connect(db) as conn:
                return conn.execute("SELECT count(*) FROM games").fetchone()[0]
        except sqlite3.OperationalError:  # not made yet, or busy
            return 0

    # Until 6 games are stored, however long a loaded machine takes: this used to give up after
    # 60 s and signal anyway, so the signal could land while the run was still starting (issue 16).
    try:
        wait_until(lambda: stored() >= 6 or proc.poll() is not None, "6 games stored", every=0.05)
        assert proc.poll() is None, f"the run ended before it could be stopped: {proc.communicate()}"
    except BaseException:
        with contextlib.suppress(ProcessLookupError):  # a failed wait leaves nothing playing
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return proc, command, db


@pytest.mark.parametrize(("workers", "cluster"), [
    (1, False), (2, False),
    # A local Dask cluster stopped under heavy load may print its own teardown noise: judged by `make perf`.
    pytest.param(2, True, marks=pytest.mark.perf)], ids=["1-worker", "2-workers", "local-cluster"])
def test_ctrl_c_during_run_says_how_to_resume(tmp_path: Path, workers: int, cluster: bool) -> None:
    """Ctrl-C reaches the terminal's whole process group (workers too, a local Dask cluster's
    included): one line, status 130, no one else's log lines (Dask's workers warned once per
    cancelled task), and running the same command again plays only the rest."""
    if cluster:
        pytest.importorskip("distributed")
    name = f"ctrlc{workers}{'c' if cluster else ''}"
    before = bot_folders(name)
    proc, command, db = run_until_games_are_stored(tmp_path, name, workers, cluster)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=PATIENCE_S)  # one Ctrl-C is enough (Referee.close cannot hang)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    last = err.strip().splitlines()[-1]
    assert last == (f"interrupted: the games finished so far are stored in {db}; "
                    f"to play the rest, run: {shlex.join(['arena', *command[3:]])}"), err
    assert [line for line in err.splitlines() if "interrupted" in line] == [last] and out == ""
    assert all(line.startswith("warning: ") for line in err.strip().splitlines()[:-1]), err
    assert "could not hand a match" not in err  # a stopping cluster's workers keep quiet
    assert bot_folders(name) == before, err  # every bot's working folder removed
    with sqlite3.connect(db) as conn:
        kept = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    assert 6 <= kept < 30
    rerun = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE_S)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{30 - kept} games played now, {kept} already stored" in rerun.stdout


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_during_run_stops_it_cleanly_and_says_how_to_resume(tmp_path: Path, workers: int) -> None:
    """`kill PID` (SIGTERM to the coordinator alone, as a service manager sends it) stops a run
    as Ctrl-C does: the games so far are kept, one line says how to resume, status 143."""
    name = f"term{workers}"
    before = bot_folders(name)
    proc, command, db = run_until_games_are_stored(tmp_path, name, workers)
    proc.terminate()
    out, err = proc.communicate(timeout=PATIENCE_S)
    assert proc.returncode == 143, err
    assert "Traceback" not in err, err
    # SIGTERM reaches the coordinator alone: it passes the stop on to its workers, which left
    # their bots' working folders behind (killed after playing their job on for 5 s).
    assert bot_folders(name) == before, err
    assert err.strip().splitlines()[-1] == (f"terminated: the games finished so far are stored in {db}; "
                                            f"to play the rest, run: {shlex.join(['arena', *command[3:]])}"), err
    rerun = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE_S)
    assert rerun.returncode == 0 and "already stored" in rerun.stdout, rerun.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 30


def test_schema_is_json_schema_of_every_message() -> None:
    schema = json.loads(ok("schema"))
    assert schema["$schema"].startswith("http://json-schema.org/draft-07")
    assert {d["$ref"].rsplit("/", 1)[1] for d in schema["oneOf"]} >= {"hello", "action", "request", "game_over"}


def test_play_names_games_as_its_warnings_do() -> None:
    """A fault's warning on stderr names the game by its id; the text on stdout shows that id
    beside "match 1 game 1", so the two can be matched up."""
    crasher = str(ROOT / "tests" / "bots" / "zoo_crash_mid.py")
    done = arena("play", "reactor", RANDOM, crasher, "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    assert "match 1 game 1 (m0-g0): 1. random_bot, 2. zoo_crash_mid" in done.stdout
    assert "zoo_crash_mid (seat 1) faulted in m0-g0: crash" in done.stderr


def test_bot_text_cannot_steer_the_terminal() -> None:
    """A bot's stderr and fault values are shown with control characters escaped: no screen
    clearing, window titles or carriage returns over the real result lines."""
    from arena.core.terminal import safe

    assert safe("a\x1b[2Jb\tc\rd\x9b\u202e") == "a\\x1b[2Jb\tc\\x0dd\\x9b\\u202e"
    ansi = str(ROOT / "tests" / "bots" / "zoo_ansi.py")
    for command in (["play", "reactor", ansi, RANDOM], ["check", ansi, "--game", "reactor", "--matches", "1"]):
        done = arena(*command, "--sandbox", "none")
        text = done.stdout + done.stderr
        assert "RuntimeError: boom \\x1b[31mred\\x9b0m" in text, text
        assert not any(c in text for c in "\x1b\x07\r\x9b\u202e"), text


@pytest.mark.parametrize("cluster", [False, True], ids=["workers", "local-cluster"])
def test_fault_warnings_of_a_run_escape_bot_text(tmp_path: Path, cluster: bool) -> None:
    """The referee's fault warnings quote what a bot sent.  `arena run` shows them as `warning:`
    lines with control characters escaped, also from a Dask worker, which starts afresh without
    the CLI's set-up (it printed them raw, through Python's last-resort handler)."""
    if cluster:
        pytest.importorskip("distributed")
    liar = ROOT / "tests" / "bots" / "zoo_illegal_ansi.py"
    spec = tmp_path / "esc.toml"
    spec.write_text(f'name = "esc"\ngame = "reactor"\nseats = 2\nseed = 1\n[sandbox]\nmode = "none"\n'
                    f'[[bots]]\nname = "liar"\npath = "{liar}"\n[[bots]]\nname = "p1"\npath = "{RANDOM}"\n')
    command = ["run", str(spec), "--db", str(tmp_path / "esc.db"), "--quiet"]
    done = arena(*command, *(["--cluster", "local", "--workers", "1"] if cluster else []))
    assert done.returncode == 0, done.stderr
    faults = [line for line in done.stderr.splitlines() if "liar (seat" in line and "faulted" in line]
    assert faults and all(line.startswith("warning: ") for line in faults), done.stderr
    assert all("Z\\u202e\\x9b2J" in line for line in faults), faults
    assert not any(c in done.stderr for c in "\x9b\u202e"), done.stderr


def test_play_takes_a_command_line_with_a_relative_path() -> None:
    """protocol/README.md: `arena play` takes a command line; a path in it is relative to where
    the user stands, not to the bot's own working folder."""
    done = arena("play", "reactor", f"{sys.executable} bots/random_bot.py --some-flag", "bots/random_bot.py",
                 "--json", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [b["faults"] for b in out["bots"]] == [{}, {}] and out["bots"][0]["games"] == 1, done.stderr


def test_ratings_of_an_unfinished_tournament_say_so(tmp_path: Path) -> None:
    """Ratings of an interrupted tournament are partial: a note on stderr says so (stdout keeps
    the table alone); once the tournament is finished, no note."""
    from arena.storage import open_store
    from arena.tournament import Tournament
    from arena.tournament.file import load_tournament

    spec, db = load_tournament(random_tournament(tmp_path, bots=3)), tmp_path / "a.db"

    def interrupt(progress) -> None:
        if progress.games_done >= 1:
            raise KeyboardInterrupt

    with open_store(str(db)) as store, pytest.raises(KeyboardInterrupt):
        Tournament(spec, store).run(workers=1, on_progress=interrupt)
    partial = arena("ratings", "--db", str(db), "--format", "csv")
    assert partial.returncode == 0 and partial.stdout.startswith("rank,bot")
    assert partial.stderr == ("note: tournament t is not finished (interrupted, or playing now): these ratings "
                              "include only the games played so far\n")
    ok("run", str(random_tournament(tmp_path, bots=3)), "--db", str(db), "--quiet")
    assert arena("ratings", "--db", str(db)).stderr == ""


def test_ratings_of_games_none_of_which_counts_say_why(tmp_path: Path) -> None:
    """Right after a tournament whose bots never started, 'run a tournament' would mislead."""
    crash = ROOT / "tests" / "bots" / "zoo_crash_start.py"
    spec = tmp_path / "t.toml"
    spec.write_text(random_tournament(tmp_path).read_text().replace(RANDOM, str(crash)))
    db = tmp_path / "a.db"
    assert runner.invoke(app, ["run", str(spec), "--db", str(db), "--quiet"]).exit_code == 0
    hint = ok("ratings", "--db", str(db))
    # Each of the 2 matches: 3 games, until both bots are disqualified for 3 faults in a row.
    assert hint.startswith("no rated games: none of the 6 stored games can be rated"), hint


def test_play_moves_the_first_starter_each_match() -> None:
    """A Reactor match is one game: without a rotation the bot in seat 0 would start them all."""
    from arena.games import GameConfig
    from arena.referee.play import play_matches
    from arena.referee import RefereeConfig

    summary = play_matches(REGISTRY["reactor"], GameConfig(players=3), [RANDOM] * 3, matches=4, seed="s",
                           referee=RefereeConfig(sandbox_mode="none"))
    assert [m.games[0].record["config"]["starter"] for m in summary.matches] == [0, 1, 2, 0]


def test_play_draws_a_seed_no_bot_can_guess_and_prints_it_to_play_the_deals_again() -> None:
    """Without --seed the deals follow from a random root seed (a fixed default, "0", let a bot
    re-deal every game); the seed is printed, and --seed with it plays the same games again."""
    drawn = [json.loads(ok("play", "reactor", RANDOM, RANDOM, "--matches", "2", "--json", "--sandbox", "none"))
             for _ in range(2)]
    seeds = [out["seed"] for out in drawn]
    assert all(len(seed) == 32 and int(seed, 16) >= 0 for seed in seeds) and seeds[0] != seeds[1]
    again = json.loads(ok("play", "reactor", RANDOM, RANDOM, "--matches", "2", "--json", "--sandbox", "none",
                          "--seed", seeds[0]))
    assert again["seed"] == seeds[0] and again["games"] == drawn[0]["games"]
    text = ok("play", "reactor", RANDOM, RANDOM, "--sandbox", "none", "--seed", "7")
    assert text.rstrip().endswith("seed 7: --seed 7 plays these deals again")


def test_play_and_check(tmp_path: Path) -> None:
    out = json.loads(ok("play", "reactor", RANDOM, RANDOM, RANDOM, "--games", "2", "--seed", "3", "--json", "--sandbox", "none"))
    assert [b["bot"] for b in out["bots"]] == ["random_bot#0", "random_bot#1", "random_bot#2"]
    copy = tmp_path / "random_bot.py"  # another file with the same stem: told apart by its path
    copy.write_bytes(Path(RANDOM).read_bytes())
    mixed = json.loads(ok("play", "reactor", RANDOM, str(copy), RANDOM, "--seed", "3", "--json", "--sandbox", "none"))
    assert [b["bot"] for b in mixed["bots"]] == [f"{RANDOM}#0", str(copy), f"{RANDOM}#2"]
    assert sum(b["match_wins"] for b in out["bots"]) == 2
    assert [b["starts"] for b in out["bots"]] == [1, 1, 1]  # once per bot for all the matches
    text = ok("check", RANDOM, "--game", "powder-keg", "--sandbox", "none")
    assert text.startswith("OK: random_bot as a powder-keg bot")
    assert "games at once: 16 offered, so its self-play games were interleaved; requests and answers in batches" in text
    crash = runner.invoke(app, ["play", "reactor", str(ROOT / "tests/bots/zoo_crash_start.py"), RANDOM, "--sandbox", "none"])
    assert crash.exit_code == 0 and "fault: zoo_crash_start (seat 0) startup" in crash.output
    assert "      | zoo_crash_start: giving up at once" in crash.output  # its last stderr lines, under the fault
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

    listing = ok("games", "--db", db, "--tournament", "cli").strip().splitlines()
    assert listing[0].split() == ["id", "game", "places", "notes"] and len(listing) == 1 + 3
    game_id = listing[1].split()[0]
    played = list(csv.DictReader(io.StringIO(ok("games", "--db", db, "--bot", "r1", "--format", "csv"))))
    assert len(played) == 3 and game_id in {g["id"] for g in played}
    assert all("r1" in g["places"] and g["notes"] == "-" for g in played)
    shown_game = ok("replay", game_id, "--db", db)
    assert "decides: play" in shown_game and "seen by" in shown_game and "result: 1." in shown_game
    # Seats are shown by their bots' names, in the events' seat fields and per-seat lists alike.
    names = re.findall(r"seat \d+ ([\w.-]+)", shown_game.splitlines()[0])
    assert len(names) == 3, shown_game
    assert re.search(rf"^   round: round=1 starter=({'|'.join(names)}) ", shown_game, re.M), shown_game
    end = next(line for line in shown_game.splitlines() if line.startswith("   end:"))
    assert re.search(rf"winner=({'|'.join(names)}) places=\[({'|'.join(names)}):\d", end), end
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


def test_a_damaged_database_is_a_one_line_error(tmp_path: Path) -> None:
    """A page of the games table overwritten: reading it is one error line, not a traceback."""
    db = tmp_path / "d.db"
    ok("run", str(random_tournament(tmp_path, "d", bots=3, seats=3)), "--db", str(db), "--quiet")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'games'").fetchone()[0]
    with open(db, "r+b") as fh:
        fh.seek((root - 1) * page_size)
        fh.write(b"\x13" * page_size)
    one_line_error(arena("games", "--db", str(db)), 1, "could not be read", "malformed")


def test_data_formats_end_with_one_newline(tmp_path: Path) -> None:
    """csv/json/markdown on stdout end with exactly one newline (csv.reader saw an empty last row)."""
    db = str(tmp_path / "f.db")
    ok("run", str(random_tournament(tmp_path, "f", bots=3, seats=3)), "--db", db, "--quiet")
    for fmt in ("csv", "json", "markdown", "table"):
        out = arena("ratings", "--db", db, "--format", fmt).stdout
        assert out.endswith("\n") and not out.endswith("\n\n"), (fmt, out[-20:])
    rows = list(csv.reader(io.StringIO(arena("ratings", "--db", db, "--format", "csv").stdout)))
    assert all(rows) and len(rows) == 4


def test_a_bot_folder_that_can_not_be_made_is_a_one_line_error(tmp_path: Path) -> None:
    """Stored bots are written out to .arena-bots beside the database; when that name is taken
    by a file, the run says so in one line (it was a NotADirectoryError traceback)."""
    (tmp_path / ".arena-bots").write_text("in the way")
    db = str(tmp_path / "b.db")
    one_line_error(arena("run", str(random_tournament(tmp_path, "b")), "--db", db, "--quiet"), 1,
                   "cannot write bot", ".arena-bots")


def test_check_plays_the_variants_and_shows_any_seats_stderr() -> None:
    """`arena check` passed a Powder Keg bot that fails with any variant on (it never played
    one), and showed only seat 0's stderr, so a bot failing in seat 1 showed no traceback."""
    variant = runner.invoke(app, ["check", str(ROOT / "tests/bots/zoo_variant.py"), "--game", "powder-keg",
                                  "--sandbox", "none"])
    assert variant.exit_code == 1 and "FAILED" in variant.output and "VARIANT BUG" in variant.output
    seat1 = runner.invoke(app, ["check", str(ROOT / "tests/bots/zoo_seat1.py"), "--game", "reactor",
                                "--sandbox", "none"])
    assert seat1.exit_code == 1 and "fault: crash (seat 1, game " in seat1.output and "SEAT1 BUG" in seat1.output


def test_bots_add_checks_with_the_time_limits_given(tmp_path: Path) -> None:
    """`bots add` always checked with a 2000 ms limit, so a bot for a tournament with a longer
    limit could not be registered; it takes --decision-ms (and the other limits) as check does."""
    slow = str(ROOT / "tests/bots/zoo_slow_start.py")
    db = str(tmp_path / "r.db")
    tight = runner.invoke(app, ["bots", "add", slow, "--name", "slow", "--game", "reactor", "--db", db,
                                "--sandbox", "none", "--decision-ms", "200"])
    assert tight.exit_code == 1 and "timeout" in tight.output
    roomy = runner.invoke(app, ["bots", "add", slow, "--name", "slow", "--game", "reactor", "--db", db,
                                "--sandbox", "none", "--decision-ms", "2000"])
    assert roomy.exit_code == 0 and "registered slow version 1" in roomy.output


def test_bots_add_says_what_it_already_has_and_show_tells_the_history(tmp_path: Path) -> None:
    """Re-adding the current content says so without a new check; a name taken by another game
    is refused before the bot is run; `bots show` lists every version and the games played."""
    bot = tmp_path / "r.py"
    bot.write_text(Path(RANDOM).read_text())
    db = str(tmp_path / "b.db")
    add = ["bots", "add", str(bot), "--name", "rr", "--game", "reactor", "--db", db, "--sandbox", "none"]
    assert "registered rr version 1" in ok(*add)
    again = ok(*add)
    assert "already has this content" in again and "handshake" not in again  # no check was run
    bot.write_text(bot.read_text() + "# changed\n")
    assert "registered rr version 2" in ok(*add)
    other = runner.invoke(app, [*add[:6], "powder-keg", *add[7:]])
    assert other.exit_code == 1 and "registered for reactor" in str(other.exception) and "handshake" not in other.output
    shown = ok("bots", "show", "rr", "--db", db)
    assert "version 2" in shown and "0 game(s) played by its versions together" in shown and "versions:" in shown
    assert [v["version"] for v in json.loads(ok("bots", "show", "rr", "--db", db, "--json"))["versions"]] == [1, 2]
    assert "no powder-keg bots" in ok("bots", "list", "--game", "powder-keg", "--db", db)


def test_bots_add_refuses_a_bad_sandbox_also_when_it_has_nothing_to_add(tmp_path: Path) -> None:
    """--sandbox was read only when the check ran, so re-adding unchanged content with a
    misspelt mode said "nothing to add" (status 0); a bad value is a bad argument either way."""
    db = str(tmp_path / "s.db")
    add = ["bots", "add", RANDOM, "--name", "s", "--game", "reactor", "--db", db]
    assert "registered s version 1" in ok(*add, "--sandbox", "none")
    one_line_error(arena(*add, "--sandbox", "nope"), 2, "--sandbox must be auto, strict or none, not 'nope'")


def test_ratings_of_a_database_with_both_games_asks_which(tmp_path: Path) -> None:
    """Bots of two games never meet, so one table of them all would mislead: without --game
    (or --tournament) such a database is an error naming the games; each game rates alone."""
    db = str(tmp_path / "two.db")
    ok("run", str(random_tournament(tmp_path, "r", bots=2, seats=2)), "--db", db, "--quiet")
    keg = tmp_path / "k.toml"
    keg.write_text(random_tournament(tmp_path, "k", bots=2, seats=2).read_text()
                   .replace('game = "reactor"', 'game = "powder-keg"').replace('"p0"', '"k0"').replace('"p1"', '"k1"'))
    ok("run", str(keg), "--db", db, "--quiet")
    one_line_error(arena("ratings", "--db", db), 2, "powder-keg and reactor", "--game")
    assert "k0" in ok("ratings", "--db", db, "--game", "powder-keg") and "p0" in ok("ratings", "--db", db, "--game", "reactor")
    assert "p0" in ok("ratings", "--db", db, "--tournament", "r")
    # A tournament of the other game is a contradiction, not "no rated games yet".
    one_line_error(arena("ratings", "--db", db, "--tournament", "k", "--game", "reactor"), 2,
                   "'k' is a powder-keg tournament, not reactor")


def test_warnings_are_one_line_like_errors() -> None:
    """A sandbox warning printed Python's file:line and a source line after the message."""
    code = ("import sys, warnings; from arena.core.terminal import report_to_stderr; from arena.sandbox import SandboxWarning; "
            "report_to_stderr(); warnings.warn('bots run without bubblewrap', SandboxWarning)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stderr == "warning: bots run without bubblewrap\n"


def test_bots_add_json_prints_only_the_outcome_as_json(tmp_path: Path) -> None:
    """Like the other commands, `bots add --json` puts data alone on stdout: registered or not,
    the version, and the check report (which the text form prints line by line)."""
    db = str(tmp_path / "a.db")
    add = ["bots", "add", RANDOM, "--name", "r1", "--game", "reactor", "--db", db, "--sandbox", "none", "--json"]
    first = runner.invoke(app, add)
    assert first.exit_code == 0, first.output
    out = json.loads(first.stdout)
    assert (out["registered"], out["version"], out["check"]["ok"]) == (True, 1, True)
    again = json.loads(runner.invoke(app, add).stdout)
    assert (again["registered"], again["version"]) == (False, 1)
    crash = runner.invoke(app, ["bots", "add", str(ROOT / "tests/bots/zoo_crash_mid.py"), "--name", "c",
                                "--game", "reactor", "--db", db, "--sandbox", "none", "--json"])
    assert crash.exit_code == 1
    failed = json.loads(crash.stdout)
    assert failed["registered"] is False and failed["check"]["ok"] is False and failed["check"]["faults"]


def test_selfplay_writes_to_stdout_and_bad_paths_are_named(tmp_path: Path) -> None:
    """`--out -` puts the records alone on stdout (the summary goes to stderr); a folder given as
    the tournament file, or a database in a folder that does not exist, is a one-line error."""
    done = arena("selfplay", "reactor", "--games", "2", "--seed", "4", "--out", "-")
    assert done.returncode == 0 and "wrote 2 game records to stdout" in done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == 2 and not (ROOT / "-").exists()
    file = tmp_path / "same.jsonl"
    ok("selfplay", "reactor", "--games", "2", "--seed", "4", "--out", str(file))
    assert file.read_text() == done.stdout  # the same bytes as to a file
    one_line_error(arena("run", str(tmp_path)), 2, f"{tmp_path} is a folder")
    missing = tmp_path / "no" / "such" / "a.db"
    one_line_error(arena("run", str(random_tournament(tmp_path, "nofolder")), "--db", str(missing)), 2,
                   f"no folder {missing.parent}")


def test_replay_reads_as_a_story(tmp_path: Path) -> None:
    """Seats are named by their bots in decisions as in events, unset fields are left out, and a
    bot that never started is said to forfeit, not to decide."""
    spec = tmp_path / "story.toml"
    spec.write_text('name = "story"\ngame = "powder-keg"\nseats = 3\npoints = 1\nseed = 2\n[sandbox]\nmode = "none"\n'
                    f'[[bots]]\nname = "nostart"\npath = "{ROOT / "tests" / "bots" / "zoo_crash_start.py"}"\n'
                    + "".join(f'[[bots]]\nname = "k{i}"\npath = "{RANDOM}"\n' for i in range(2)))
    db = str(tmp_path / "s.db")
    ok("run", str(spec), "--db", db, "--quiet")
    game_id = json.loads(ok("games", "--db", db, "--json", "--limit", "1"))[0]["id"]
    text = ok("replay", game_id, "--db", db)
    assert ">> nostart forfeits (startup), before the first decision: it was not playing" in text
    assert "None" not in text and "decides: forfeit" not in text
    assert "turn: seat=k" in text and "owed=1 doubled=no" in text
    targets = re.findall(r"decides: \w+ .*?target=(\S+)", text)
    assert targets and all(t in ("k0", "k1", "nostart") for t in targets), targets


def test_selfplay_deals_depend_on_the_seat_count() -> None:
    """One --seed at two --players must not deal the same deck orders (Reactor shuffles its whole
    deck whatever the table size, so the orders were equal)."""
    from arena.games.selfplay import SelfPlaySpec, iter_records

    def first_shuffle(players: int) -> list[str]:
        record = next(iter_records(SelfPlaySpec(game="reactor", players=players, matches=1, seed=7)))
        return record["chance"][0]["order"]

    assert first_shuffle(3) != first_shuffle(4)
    assert first_shuffle(3) == first_shuffle(3)


def test_version() -> None:
    from arena import __version__

    assert ok("--version").strip() == f"arena {__version__}"
    bare = arena()  # with no command, the help as before
    assert bare.returncode == 0 and "Usage" in bare.stdout and "--version" in bare.stdout
