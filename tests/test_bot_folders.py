"""Bots of many files: a folder (or archive) with a bot.toml, packed as one tar, stored by
content, run read-only in the real sandbox; a folder is untrusted input."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots import folder as folders
from arena.bots.package import pack, pack_target, ship, unpacked, unship
from arena.bots.resolve import bot_spec
from arena.cli import app
from arena.errors import UnknownBot, UsageError
from arena.referee.check import check_bot
from arena.sandbox import launch
from arena.storage import open_store
from arena.storage.registry import find_version, materialize, register

from common import MODE, RANDOM, needs_bwrap

runner = CliRunner()

# A bot of two files: the script imports its neighbour.  Its hello name says whether it could
# write into its own folder (it must not: the folder is mounted read-only).
BOT = '''
import os, random, sys
from protocol.sdk import run
from helper import choose

def writable():
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scribble"), "w") as fh:
            fh.write("x")
        return "wrote"
    except OSError:
        return "read-only"

class Bot:
    def __init__(self):
        self.rng = random.Random()
    def on_game_start(self, msg):
        self.rng.seed(msg["seed"])
    def act(self, observation, legal, ctx):
        return choose(self.rng, legal)

sys.exit(run(Bot, name=writable()))
'''


def two_files(folder: Path, *, manifest: str = 'name = "duo"\ngames = ["reactor"]\ncommand = ["python", "bot.py"]\n',
              helper: str = "def choose(rng, legal):\n    return rng.choice(legal)\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(BOT)
    (folder / "helper.py").write_text(helper)
    (folder / "bot.toml").write_text(manifest)
    return folder


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def refused(target: Path | str, *words: str) -> str:
    with pytest.raises(UnknownBot) as caught:
        pack_target(str(target))
    message = str(caught.value)
    assert all(w in message for w in words), message
    return message


# --------------------------------------------------------------------------- running


@needs_bwrap
def test_a_folder_bot_passes_check_in_the_sandbox_and_cannot_write_its_folder(tmp_path: Path) -> None:
    package = pack(two_files(tmp_path / "duo"))
    report = check_bot(unpacked(package, "duo"), "reactor", matches=1)
    assert report.ok, report.lines()
    assert report.hello_name == "read-only"


def test_a_folder_is_packed_to_the_same_bytes_whatever_its_times_and_caches(tmp_path: Path) -> None:
    first = pack(two_files(tmp_path / "a"))
    assert first.name == "duo" and first.games == ("reactor",) and first.command == ("python", "{dir}/bot.py")
    os.utime(tmp_path / "a" / "helper.py", (1, 1))
    (tmp_path / "a" / "__pycache__").mkdir()
    (tmp_path / "a" / "__pycache__" / "helper.cpython-311.pyc").write_bytes(b"\0" * 10)
    assert pack(tmp_path / "a").sha256 == first.sha256
    (tmp_path / "a" / "helper.py").write_text("def choose(rng, legal):\n    return legal[0]\n")
    assert pack(tmp_path / "a").sha256 != first.sha256


def test_archives_are_the_folder_they_hold(tmp_path: Path) -> None:
    folder = two_files(tmp_path / "duo")
    with zipfile.ZipFile(tmp_path / "duo.zip", "w") as z:
        for name in ("bot.py", "helper.py", "bot.toml"):
            z.write(folder / name, f"duo/{name}")  # one top-level folder: that is the bot
    with tarfile.open(tmp_path / "duo.tar.gz", "w:gz") as t:
        t.add(folder, "duo")
    hashes = {pack(p).sha256 for p in (folder, tmp_path / "duo.zip", tmp_path / "duo.tar.gz")}
    assert len(hashes) == 1


def test_the_stored_folder_is_written_out_and_run_as_it_was_packed(tmp_path: Path) -> None:
    folder = two_files(tmp_path / "duo")
    (folder / "data").mkdir()
    (folder / "data" / "table.txt").write_text("42")
    os.symlink("data/table.txt", folder / "link.txt")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(folder / "run.sh", 0o755)
    with open_store(str(tmp_path / "b.db")) as store:
        version = register(store, folder, name="duo", game="reactor")
        spec = materialize(store, version)
        out = Path(spec.expose[0])
        assert (out / "data" / "table.txt").read_text() == "42" and os.readlink(out / "link.txt") == "data/table.txt"
        assert os.access(out / "run.sh", os.X_OK) and not os.access(out / "helper.py", os.X_OK)
        assert spec.command[1] == str(out / "bot.py")
        # Sent to another machine (a Dask worker) and back: the same bot.
        again = unship(ship(spec), tmp_path / "elsewhere")
        assert (Path(again.expose[0]) / "helper.py").is_file()
        assert folders.to_tar(folders.folder_entries(Path(again.expose[0]))) == store.bot_content(version.id)


@needs_bwrap
def test_a_bot_may_bring_its_own_venv(tmp_path: Path) -> None:
    """A venv built from arena's Python, inside the folder, with a package only it has."""
    folder = two_files(tmp_path / "venvbot", manifest='command = ["venv/bin/python", "bot.py"]\n',
                       helper="from vendored_choice import choose\n")
    subprocess.run([os.path.realpath(sys.executable), "-m", "venv", "--without-pip", str(folder / "venv")], check=True)
    site = next((folder / "venv" / "lib").glob("python3*/site-packages"))
    (site / "vendored_choice.py").write_text("def choose(rng, legal):\n    return rng.choice(legal)\n")
    package = pack(folder)
    assert package.command[0] == "{dir}/venv/bin/python"
    report = check_bot(unpacked(package, "venvbot"), "reactor", matches=1)
    assert report.ok, report.lines()


# --------------------------------------------------------------------------- untrusted folders


def test_a_link_out_of_the_folder_is_refused_and_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the referee's secret")
    folder = two_files(tmp_path / "duo")
    os.symlink(secret, folder / "stolen.txt")
    refused(folder, "stolen.txt", "outside the folder", "sandbox does not show")
    os.unlink(folder / "stolen.txt")
    os.symlink("../secret.txt", folder / "stolen.txt")
    refused(folder, "stolen.txt", "points out of the folder")
    os.unlink(folder / "stolen.txt")
    # Through a link that is allowed, the text of a second one says nothing of where it ends.
    os.symlink("/usr", folder / "usr")
    os.symlink("usr/../root", folder / "stolen.txt")
    refused(folder, "goes through the link usr")
    os.unlink(folder / "stolen.txt")
    # A link to what every sandbox shows is kept as a link: a venv's bin/python.
    package = pack(folder)
    assert b"the referee's secret" not in package.content


def test_special_files_are_refused(tmp_path: Path) -> None:
    folder = two_files(tmp_path / "duo")
    os.mkfifo(folder / "pipe")
    refused(folder, "pipe", "not a file, folder or link")


def _tar(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as t:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            t.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


MANIFEST = b'command = ["python", "bot.py"]\n'


@pytest.mark.parametrize(("members", "words"), [
    ([(_member("../evil.py"), b"x")], ("points out of the folder",)),
    ([(_member("/etc/evil"), b"x")], ("absolute path",)),
    ([(_member("escape", tarfile.SYMTYPE, "/usr/lib"), b""), (_member("escape/evil.so"), b"x")],
     ("inside escape, which is a link",)),
    ([(_member("l", tarfile.LNKTYPE, "bot.toml"), b"")], ("hard link",)),
    ([(_member("dev", tarfile.CHRTYPE), b"")], ("not a file, folder or link",)),
    ([(_member("bot.toml"), b"x"), (_member("./bot.toml"), b"y")], ("twice",)),
])
def test_a_hostile_archive_is_refused_with_what_is_wrong(tmp_path: Path, members, words) -> None:
    archive = tmp_path / "bad.tar"
    archive.write_bytes(_tar([(_member("bot.toml"), MANIFEST), (_member("bot.py"), b""), *members]
                             if not any(m.name.endswith("bot.toml") for m, _ in members) else
                             [(_member("bot.py"), b""), *members]))
    refused(archive, *words)


def test_an_archive_that_unpacks_to_too_much_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(folders, "MAX_BYTES", 1 << 20)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bot.toml", MANIFEST)
        z.writestr("zeros", b"\0" * (2 << 20))  # 2 MB that compress to a few KB
    assert bomb.stat().st_size < 64 << 10
    refused(bomb, "unpacks to more than 1 MB")
    monkeypatch.setattr(folders, "MAX_FILES", 10)
    many = tmp_path / "many.tar"
    many.write_bytes(_tar([(_member("bot.toml"), MANIFEST)] + [(_member(f"f{i}"), b"") for i in range(20)]))
    refused(many, "more than 10 files")
    folder = two_files(tmp_path / "big")
    for i in range(12):
        (folder / f"f{i}").write_text("")
    refused(folder, "more than 10 files")


@pytest.mark.parametrize(("manifest", "words"), [
    (None, ("needs a bot.toml",)),
    ("command = 3\n", ("command must be a list",)),
    ("command = []\n", ("command must be a list",)),
    ('command = ["python", "bot.py"]\ncolour = "red"\n', ("unknown field 'colour'",)),
    ('command = ["python", "bot.py"]\nname = "../../etc"\n', ("name '../../etc' is not allowed",)),
    ('command = ["nothere", "bot.py"]\n', ("not in the folder",)),
    ('command = ["helper.py"]\n', ("not executable",)),
    ("command = [" + ", ".join(['"x"'] * 100) + "]\n", ("command must be a list of 1-64 words",)),
    ("command = 'python bot.py\n", ("not valid TOML",)),
])
def test_an_absurd_manifest_gets_a_clear_error(tmp_path: Path, manifest: str | None, words) -> None:
    folder = two_files(tmp_path / "duo")
    if manifest is None:
        (folder / "bot.toml").unlink()
    else:
        (folder / "bot.toml").write_text(manifest)
    refused(folder, *words)


def test_the_link_roots_are_what_the_sandbox_mounts() -> None:
    assert set(launch._SYSTEM_TOP) <= set(folders.SYSTEM_TREES)
    assert set(folders.SYSTEM_TREES) <= {"/usr", *launch._SYSTEM_TOP}


# --------------------------------------------------------------------------- the registry and the CLI


def test_bots_add_a_folder_takes_its_name_and_game_from_the_manifest(tmp_path: Path) -> None:
    folder = two_files(tmp_path / "duo")
    db = str(tmp_path / "b.db")
    assert "registered duo version 1" in ok("bots", "add", str(folder), "--db", db, "--sandbox", MODE)
    shown = json.loads(ok("bots", "show", "duo", "--db", db, "--json"))
    assert shown["filename"] == "duo.tar" and shown["command"] == ["python", "{dir}/bot.py"]
    wrong = runner.invoke(app, ["bots", "add", str(folder), "--game", "powder-keg", "--db", db])
    assert isinstance(wrong.exception, UsageError) and "says it plays reactor" in str(wrong.exception)


def test_re_adding_old_content_leaves_the_current_version_and_says_so(tmp_path: Path) -> None:
    bot = tmp_path / "r.py"
    bot.write_text(Path(RANDOM).read_text())
    db = str(tmp_path / "b.db")
    add = ["bots", "add", str(bot), "--name", "rr", "--game", "reactor", "--db", db, "--sandbox", "none"]
    ok(*add)
    original = bot.read_text()
    bot.write_text(original + "# v2\n")
    ok(*add)
    bot.write_text(original)
    said = ok(*add)
    assert "the current version stays 2" in said and "--make-current" in said and "rr@1" in said
    with open_store(db) as store:
        assert store.bot("rr").version == 2
    assert "current version again" in ok(*add, "--make-current")
    with open_store(db) as store:
        assert store.bot("rr").version == 1
        assert find_version(store, "rr@2").version == 2
        assert find_version(store, f"rr@{store.bot_history('rr')[1].sha256[:8]}").version == 2
        with pytest.raises(UnknownBot, match="names no version"):
            find_version(store, "rr@7")


def test_a_command_line_bot_is_registered_with_its_script(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    script.write_text(Path(RANDOM).read_text())
    package = pack_target(f"{os.path.realpath(sys.executable)} {script} --quiet")
    assert package.command == ("python", "{file}", "--quiet") and package.content == script.read_bytes()
    db = str(tmp_path / "b.db")
    line = f"{os.path.realpath(sys.executable)} {script}"
    assert "registered mine version 1" in ok("bots", "add", line, "--game", "reactor", "--db", db, "--sandbox", "none")


def test_a_tournament_plays_folders_commands_and_two_versions_of_one_bot(tmp_path: Path) -> None:
    """Old against new: ``name = "rr@1"`` and ``"rr@2"`` are rated apart, under those labels."""
    bot = tmp_path / "r.py"
    text = Path(RANDOM).read_text()
    db = str(tmp_path / "b.db")
    with open_store(db) as store:
        bot.write_text(text)
        register(store, bot, name="rr", game="reactor")
        bot.write_text(text + "# v2\n")
        register(store, bot, name="rr", game="reactor")
    two_files(tmp_path / "duo")
    (tmp_path / "t.toml").write_text(
        'name = "t"\ngame = "reactor"\nseats = 4\nseed = 1\n[sandbox]\nmode = "none"\n'
        '[[bots]]\nname = "rr@1"\n[[bots]]\nname = "rr@2"\n'
        '[[bots]]\nname = "duo"\npath = "duo"\n'
        f'[[bots]]\nname = "cmd"\ncommand = "{os.path.realpath(sys.executable)} r.py"\n')
    ok("run", str(tmp_path / "t.toml"), "--db", db)
    ratings = json.loads(ok("ratings", "--db", db, "--json"))
    rows = ratings["ratings"] if isinstance(ratings, dict) else ratings
    names = {row["bot"] for row in rows}
    assert names == {"rr@1", "rr@2", "duo", "cmd"}, rows
    listed = json.loads(ok("bots", "list", "--db", db, "--json"))
    assert {row["name"]: row["games"] for row in listed}["rr"] == 8  # 4 rotations, each version in each
    assert "rr@1" not in {row["name"] for row in listed}
    games = json.loads(ok("games", "--db", db, "--bot", "rr@1", "--json"))
    assert len(games) == 4 and all("rr@1" in g["bots"] for g in games)


# --------------------------------------------------------------------------- what check explains


def test_check_explains_a_module_the_sandbox_does_not_show(tmp_path: Path) -> None:
    folder = two_files(tmp_path / "duo")
    report = check_bot(bot_spec(str(folder / "bot.py")), "reactor", matches=1)
    assert not report.ok
    assert any("imports 'helper'" in p and "make the bot a folder with a bot.toml" in p for p in report.problems), \
        report.problems


def test_check_explains_an_interpreter_outside_the_sandbox(tmp_path: Path) -> None:
    venv = tmp_path / "outside-venv"
    subprocess.run([os.path.realpath(sys.executable), "-m", "venv", "--without-pip", str(venv)], check=True)
    script = tmp_path / "mybot"
    script.write_text(f"#!{venv}/bin/python\n" + Path(RANDOM).read_text())
    script.chmod(0o755)
    report = check_bot(bot_spec(str(script)), "reactor", matches=1)
    assert any(f"#!{venv}/bin/python, which is not visible in the sandbox" in p for p in report.problems), \
        report.problems


def test_bots_list_in_a_folder_with_no_database_is_an_empty_list(tmp_path: Path) -> None:
    db = str(tmp_path / "none.db")
    assert "no bots in" in ok("bots", "list", "--db", db)
    listed = runner.invoke(app, ["bots", "list", "--db", db, "--json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout) == []
    assert not Path(db).exists()


def test_remove_and_rename_keep_stored_games_under_the_name_they_were_played(tmp_path: Path) -> None:
    db = str(tmp_path / "b.db")
    with open_store(db) as store:
        for name in ("a", "b", "c"):
            register(store, RANDOM, name=name, game="reactor")
    (tmp_path / "t.toml").write_text('name = "t"\ngame = "reactor"\nseats = 2\nseed = 1\n[sandbox]\nmode = "none"\n'
                                     '[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n')
    ok("run", str(tmp_path / "t.toml"), "--db", db)
    before = json.loads(ok("ratings", "--db", db, "--json"))
    assert "renamed a to alpha" in ok("bots", "rename", "a", "alpha", "--db", db)
    assert "removed b" in ok("bots", "remove", "b", "--db", db)
    assert "removed c" in ok("bots", "remove", "c", "--db", db)  # never played: gone
    listed = {row["name"]: row for row in json.loads(ok("bots", "list", "--db", db, "--json"))}
    assert set(listed) == {"alpha"} and listed["alpha"]["games"] == 2
    assert json.loads(ok("ratings", "--db", db, "--json")) == before  # the games did not change
    with open_store(db) as store:
        with pytest.raises(UnknownBot):
            store.bot("b")
        assert store.bot_history("c") == [] and store.bot("alpha").version == 1
        assert store.counts()["games"] == 2
    taken = runner.invoke(app, ["bots", "rename", "alpha", "b", "--db", db])
    assert taken.exit_code != 0 and "already" in str(taken.exception)


def test_a_removed_name_can_be_taken_again(tmp_path: Path) -> None:
    """A removed bot's name (its games kept under it) is free: `bots add` and a tournament file's
    path take it again (both failed with "no bot named ..." after the removal, found in review)."""
    db = str(tmp_path / "b.db")
    with open_store(db) as store:
        for name in ("a", "b"):
            register(store, RANDOM, name=name, game="reactor")
    (tmp_path / "t.toml").write_text('name = "t"\ngame = "reactor"\nseats = 2\nseed = 1\n[sandbox]\nmode = "none"\n'
                                     '[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n')
    ok("run", str(tmp_path / "t.toml"), "--db", db)
    ok("bots", "remove", "a", "--db", db)
    ok("bots", "remove", "b", "--db", db)
    ok("bots", "add", RANDOM, "--name", "a", "--game", "reactor", "--db", db, "--sandbox", "none")
    (tmp_path / "u.toml").write_text('name = "u"\ngame = "reactor"\nseats = 2\nseed = 1\n[sandbox]\nmode = "none"\n'
                                     f'[[bots]]\nname = "a"\n[[bots]]\nname = "b"\npath = "{RANDOM}"\n')
    ok("run", str(tmp_path / "u.toml"), "--db", db)
    listed = {row["name"]: row for row in json.loads(ok("bots", "list", "--db", db, "--json"))}
    assert set(listed) == {"a", "b"} and listed["a"]["games"] == 4 and listed["b"]["games"] == 4
    with open_store(db) as store:
        assert store.bot("a").version == 1 and store.bot("b").version == 1  # the same content as before
