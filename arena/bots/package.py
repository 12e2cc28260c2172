"""A bot's file as bytes and a command template, and back to a runnable :class:`BotSpec` on
any machine: the one way a stored bot (the registry) and a bot sent to a Dask worker are
written out and started.

A command template names the interpreter by a word (``python``, ``node``) and the bot's file as
``{file}``; :func:`runnable` writes the file once into a folder and puts this machine's paths in.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.bots.spec import BotSpec
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


def runnable(name: str, filename: str, content: Callable[[], bytes], command: Sequence[str], folder: Path,
             env: Sequence[tuple[str, str]] = ()) -> BotSpec:
    """Write a bot's file into ``folder`` (once; safe when processes race) and build its command
    on this machine: ``python`` and ``node`` become this machine's interpreters, ``{file}`` the
    file.  An environment entry naming a directory (``NODE_PATH``) is kept, and exposed to the
    bot, only if that directory exists here."""
    target = folder / filename
    if not target.exists():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            partial = folder / f"{filename}.{os.getpid()}-{threading.get_ident()}.part"
            partial.write_bytes(content())
            os.chmod(partial, 0o755 if list(command) == ["{file}"] else 0o644)
            partial.replace(target)
        except OSError as exc:
            raise StorageError(f"cannot write bot {name!r} to {folder} ({exc.strerror or exc}): the bots of a "
                               f"database are run from a folder {folder.parent.name} beside it") from None
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
        else:
            argv.append(str(target) if word == "{file}" else word)
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
    """Pack a bot run from a file (``registry.materialize``: the file is ``expose[0]``)."""
    path = Path(spec.expose[0])
    node = shutil.which("node")
    runners = {os.path.realpath(sys.executable): "python", str(path): "{file}"}
    if node is not None:
        runners[os.path.realpath(node)] = "node"
    command = tuple(runners.get(word, word) for word in spec.command)
    return ShippedBot(spec.name, path.name, path.read_bytes(), command, spec.env)


def unship(bot: ShippedBot, cache: Path) -> BotSpec:
    """Write the bot's file into ``cache`` (once per content) and build its command here."""
    folder = cache / f"{bot.name}-{hashlib.sha256(bot.content).hexdigest()[:12]}"
    return runnable(bot.name, bot.filename, lambda: bot.content, bot.command, folder, bot.env)
