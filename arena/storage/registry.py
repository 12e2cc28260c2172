"""The bot registry: bots stored by content, so a tournament is reproducible.

Registering a bot stores its file and a command template (``["python", "{file}"]``); a changed
file becomes a new version.  To run a stored version, its content is written once to the
store's bot cache (:meth:`Store.bot_cache`) and started from there, so editing the original
file never changes what a tournament plays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.bots.package import command_template, runnable
from arena.bots.spec import BotSpec
from arena.core.names import NAME_RULE, valid_name
from arena.errors import UnknownBot
from arena.storage import BotVersion, Store


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


def materialize(store: Store, version: BotVersion) -> BotSpec:
    """A runnable :class:`BotSpec` for a stored version (its file written once into the store's
    bot cache)."""
    env: list[tuple[str, str]] = []
    source = version.check_report.get("source")
    if "node" in version.command and source:
        # A JavaScript bot's packages stay where it was registered from (node_modules is not stored).
        env.append(("NODE_PATH", str(Path(source).parent / "node_modules")))
    folder = store.bot_cache() / f"{version.name}-v{version.version}-{version.sha256[:12]}"
    return runnable(version.name, version.filename, lambda: store.bot_content(version.id),
                    version.command, folder, env)
