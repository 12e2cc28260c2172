"""The bot registry: bots stored by content, so a tournament is reproducible.

Registering a bot stores its file and a command template (``["python", "{file}"]``); a changed
file becomes a new version.  To run a stored version, its content is written once to a cache
beside the database and started from there, so editing the original file never changes what
a tournament plays.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from arena.errors import UnknownBot
from arena.referee import BotSpec
from arena.storage import BotVersion, Store

RUNNERS = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node"}


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
    path = Path(path).resolve()
    if not path.is_file():
        raise UnknownBot(f"no bot file at {path}")
    report = dict(check_report or {})
    report.setdefault("source", str(path))
    return store.add_bot_version(name, game, path.name, path.read_bytes(), command_template(path), report)


def materialize(store: Store, version: BotVersion, cache: Path) -> BotSpec:
    """A runnable :class:`BotSpec` for a stored version (its file written once into ``cache``)."""
    folder = cache / f"{version.name}-v{version.version}-{version.sha256[:12]}"
    target = folder / version.filename
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / (version.filename + ".part")
        partial.write_bytes(store.bot_content(version.id))
        os.chmod(partial, 0o755 if version.command == ["{file}"] else 0o644)
        partial.replace(target)
    os.chmod(cache, 0o755)
    os.chmod(folder, 0o755)
    command: list[str] = []
    env: list[tuple[str, str]] = []
    expose = [str(target)]
    for word in version.command:
        if word == "python":
            command.append(os.path.realpath(sys.executable))
        elif word == "node":
            node = shutil.which("node")
            if node is None:
                raise UnknownBot(f"bot {version.name!r} is a JavaScript bot but node is not installed")
            command.append(os.path.realpath(node))
            # Its packages stay where it was registered from (node_modules is not stored).
            source = version.check_report.get("source")
            modules = Path(source).parent / "node_modules" if source else None
            if modules is not None and modules.is_dir():
                env.append(("NODE_PATH", str(modules)))
                expose.append(str(modules))
        else:
            command.append(str(target) if word == "{file}" else word)
    return BotSpec(version.name, tuple(command), tuple(expose), tuple(env))


def cache_dir(db_path: str | Path) -> Path:
    """Where stored bot versions are written out to run: beside the database."""
    return Path(db_path).resolve().parent / ".arena-bots"
