"""A bot as bytes and a command template, and back to a runnable :class:`BotSpec` on any
machine: the one way a stored bot (the registry) and a bot sent to a Dask worker are written
out and started.

A bot is one file, or a folder with a ``bot.toml`` (:mod:`arena.bots.folder`; an archive of one
is read as the folder), stored as one tar.  A command template names the interpreter by a word
(``python``, ``node``), a one-file bot's file as ``{file}`` and a folder as ``{dir}``;
:func:`runnable` writes the bot once into a folder and puts this machine's paths in.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.bots import folder as folders
from arena.bots.spec import BotSpec, command_words, refuse_empty
from arena.errors import StorageError, UnknownBot

RUNNERS = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node"}


def command_template(path: Path) -> list[str]:
    """How to run a bot file: by its suffix, or directly if it is executable."""
    runner = RUNNERS.get(path.suffix)
    if runner is not None:
        return [runner, "{file}"]
    if os.access(path, os.X_OK):
        return ["{file}"]
    raise UnknownBot(f"{path}: a bot is a .py or .js script, or an executable file")


@dataclass(frozen=True, slots=True)
class Package:
    """A bot as the registry stores it: a file's bytes, or a folder's tar (``{dir}`` in the
    command), with the name and games its manifest gives."""

    filename: str
    content: bytes
    command: tuple[str, ...]
    name: str | None = None  # the manifest's, or the file's stem
    games: tuple[str, ...] = ()
    source: str = ""  # where it was packed from, as the registry notes it

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


def is_folder(command: Sequence[str]) -> bool:
    """Whether a template runs a folder (its content is a tar) rather than one file."""
    return any(folders.DIR in word for word in command)


def pack(path: Path) -> Package:
    """A bot file, folder (with ``bot.toml``) or archive of one, as the registry stores it; an
    :class:`UnknownBot` that says what is wrong with it."""
    path = Path(path)
    if path.is_dir() or folders.is_archive(path):
        where = str(path)
        entries = folders.folder_entries(path) if path.is_dir() else folders.archive_entries(path)
        manifest = folders.manifest(entries, where)
        command = folders.command_template(entries, manifest.command, where)
        stem = path.name.split(".")[0] if path.is_file() else path.resolve().name
        return Package(f"{stem}.tar", folders.to_tar(entries), tuple(command), manifest.name or stem, manifest.games,
                       str(path.resolve()))
    if not path.is_file():
        raise UnknownBot(f"no bot at {path}")
    return Package(path.name, path.read_bytes(), tuple(command_template(path)), path.stem, (), str(path.resolve()))


def pack_target(target: str) -> Package:
    """What a user names a bot by (a path, or a command line such as ``/opt/env/bin/python
    bot.py``) as the registry stores it: a command line's script is stored (else its program),
    and its interpreter stays a path of this machine."""
    refuse_empty(target)
    if Path(target).exists():
        return pack(Path(target))
    words = command_words(target)
    program = shutil.which(words[0]) if words else None
    if program is None:
        if len(words) == 1 and ("/" in target or target.endswith((".py", ".js"))):
            raise UnknownBot(f"no bot file at {target}")
        raise UnknownBot(f"no bot at {target!r}: give a path to a script, a bot folder, or a command")
    real = os.path.realpath(program)
    node = shutil.which("node")
    runner = ("python" if real == os.path.realpath(sys.executable) else
              "node" if node is not None and real == os.path.realpath(node) else real)
    script = next((i for i, w in enumerate(words[1:], 1) if Path(w).is_file()), None)
    rest = [str(Path(w).resolve()) if Path(w).exists() else w for w in words[1:]]
    if script is None:  # the program is the bot: store it
        return Package(Path(real).name, Path(real).read_bytes(), ("{file}", *rest), Path(real).stem, (), target)
    path = Path(words[script]).resolve()
    command = [runner, *rest]
    command[script] = "{file}"
    return Package(path.name, path.read_bytes(), tuple(command), path.stem, (), target)


def _write_once(target: Path, name: str, write: Callable[[Path], None]) -> None:
    """Make ``target`` with ``write`` (given a fresh path beside it), once: safe when processes race."""
    if target.exists() or target.is_symlink():
        return
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"{target.name}.{os.getpid()}-{threading.get_ident()}.part"
        if partial.is_dir():
            shutil.rmtree(partial)
        write(partial)
        try:
            partial.replace(target)
        except OSError:
            if not target.exists():
                raise
            shutil.rmtree(partial, ignore_errors=True)  # another process made it first
    except OSError as exc:
        raise StorageError(f"cannot write bot {name!r} to {folder} ({exc.strerror or exc}): the bots of a "
                           f"database are run from a folder {folder.parent.name} beside it") from None


def runnable(name: str, filename: str, content: Callable[[], bytes], command: Sequence[str], folder: Path,
             env: Sequence[tuple[str, str]] = ()) -> BotSpec:
    """Write a bot's file into ``folder`` (once; safe when processes race) and build its command
    on this machine: ``python`` and ``node`` become this machine's interpreters, ``{file}`` the
    file (or ``{dir}`` the folder, unpacked from its tar).  An environment entry naming a
    directory (``NODE_PATH``) is kept, and exposed to the bot, only if that directory exists here."""
    if is_folder(command):
        target = folder / "bot"
        _write_once(target, name, lambda at: folders.write_entries(folders.package_entries(content()), at))
    else:
        target = folder / filename

        def write_file(at: Path) -> None:
            at.write_bytes(content())
            os.chmod(at, 0o755 if list(command)[:1] == ["{file}"] else 0o644)

        _write_once(target, name, write_file)
    for directory in (folder.parent, folder):
        os.chmod(directory, 0o755)  # the bot's own uid must read its file
    argv: list[str] = []
    for word in command:
        if word == "python":
            argv.append(os.path.realpath(sys.executable))
        elif word == "node":
            node = shutil.which("node")
            if node is None:
                raise UnknownBot(f"bot {name!r} is a JavaScript bot but node is not installed here")
            argv.append(os.path.realpath(node))
        elif word == "{file}":
            argv.append(str(target))
        else:
            argv.append(word.replace(folders.DIR, str(target)))
    expose = [str(target)]
    kept = []
    for key, value in env:
        if key == "NODE_PATH":
            if not os.path.isdir(value):
                continue
            expose.append(value)
        kept.append((key, value))
    return BotSpec(name, tuple(argv), tuple(expose), tuple(kept))


@dataclass(frozen=True, slots=True)
class ShippedBot:
    """A bot as another machine can run it: its file's bytes and a command template."""

    name: str
    filename: str
    content: bytes
    command: tuple[str, ...]  # "python", "node" and "{file}" as in the registry's templates
    env: tuple[tuple[str, str], ...] = ()


def ship(spec: BotSpec) -> ShippedBot:
    """Pack a bot run from a file or folder (``registry.materialize``: it is ``expose[0]``)."""
    path = Path(spec.expose[0])
    node = shutil.which("node")
    runners = {os.path.realpath(sys.executable): "python", str(path): "{file}"}
    if node is not None:
        runners[os.path.realpath(node)] = "node"
    if path.is_dir():  # a folder bot: its words under the folder name it as {dir}
        prefix = str(path) + "/"
        command = tuple(runners.get(word, word).replace("{file}", folders.DIR) if not word.startswith(prefix)
                        else folders.DIR + "/" + word[len(prefix):] for word in spec.command)
        entries = folders.folder_entries(path)
        return ShippedBot(spec.name, f"{path.name}.tar", folders.to_tar(entries), command, spec.env)
    command = tuple(runners.get(word, word) for word in spec.command)
    return ShippedBot(spec.name, path.name, path.read_bytes(), command, spec.env)


def unship(bot: ShippedBot, cache: Path) -> BotSpec:
    """Write the bot's file into ``cache`` (once per content) and build its command here."""
    folder = cache / f"{bot.name}-{hashlib.sha256(bot.content).hexdigest()[:12]}"
    return runnable(bot.name, bot.filename, lambda: bot.content, bot.command, folder, bot.env)


_local: list[Path] = []


def local_cache() -> Path:
    """A folder of this process to run bots from that are named by path (``arena play`` and
    ``check`` of a folder or archive): removed when the process ends."""
    if not _local:
        made = Path(tempfile.mkdtemp(prefix="arena-local-bots-"))
        os.chmod(made, 0o755)
        atexit.register(shutil.rmtree, made, True)
        _local.append(made)
    return _local[0]


def unpacked(package: Package, label: str) -> BotSpec:
    """A bot named by path, packed and written out as the registry would run it, so that what is
    checked and played is what would be stored."""
    folder = local_cache() / f"{label}-{package.sha256[:12]}"
    return runnable(label, package.filename, lambda: package.content, package.command, folder)
