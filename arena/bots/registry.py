"""The bot registry: bots stored by content, so a tournament is reproducible.

Registering a bot stores its file and a command template (``["python", "{file}"]``); a changed
file becomes a new version.  To run a stored version, its content is written once to a cache
beside the database and started from there, so editing the original file never changes what
a tournament plays.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.errors import StorageError, UnknownBot
from arena.referee import BotSpec
from arena.storage import BotVersion, Store

RUNNERS = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node"}

# The one rule for the names of bots and tournaments (tournament files, `arena bots add`).
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
NAME_RULE = "1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"


def valid_name(name: object) -> bool:
    """Whether ``name`` may name a bot or a tournament (see :data:`NAME_RULE`)."""
    return isinstance(name, str) and NAME_RE.match(name) is not None


def command_template(path: Path) -> list[str]:
    """How to run a bot file: by its suffix, or directly if it is executable."""
    runner = RUNNERS.get(path.suffix)
    if runner is not None:
        return [runner, "{file}"]
    if os.access(path, os.X_OK):
        return ["{file}"]
    raise UnknownBot(f"{path}: a bot is a .py or .js script, or an executable file")


def register(store: Store, path: str | Path, *, name: str, game: str,
             check_report: dict[str, Any] | None = None) -> BotVersion:
    """Store a bot file under ``name`` (a new version if its content changed)."""
    if not valid_name(name):
        raise UnknownBot(f"bot name {name!r} is not allowed: a name is {NAME_RULE}")
    path = Path(path).resolve()
    if not path.is_file():
        raise UnknownBot(f"no bot file at {path}")
    report = dict(check_report or {})
    report.setdefault("source", str(path))
    return store.add_bot_version(name, game, path.name, path.read_bytes(), command_template(path), report)


def materialize(store: Store, version: BotVersion, cache: Path) -> BotSpec:
    """A runnable :class:`BotSpec` for a stored version (its file written once into ``cache``)."""
    env: list[tuple[str, str]] = []
    source = version.check_report.get("source")
    if "node" in version.command and source:
        # A JavaScript bot's packages stay where it was registered from (node_modules is not stored).
        env.append(("NODE_PATH", str(Path(source).parent / "node_modules")))
    folder = cache / f"{version.name}-v{version.version}-{version.sha256[:12]}"
    return runnable(version.name, version.filename, lambda: store.bot_content(version.id),
                    version.command, folder, env)


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


def cache_dir(db_path: str | Path) -> Path:
    """Where stored bot versions are written out to run: beside the database."""
    return Path(db_path).resolve().parent / ".arena-bots"
