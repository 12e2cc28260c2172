"""The bot registry: bots stored by content, so a tournament is reproducible.

Registering a bot stores its file and a command template (``["python", "{file}"]``); a changed
file becomes a new version.  :func:`add_checked` registers a bot only once it has passed a check
(``arena bots add``); a tournament file's ``path =`` registers its bot without one.  To run a stored version, its content is written once to the
store's bot cache (:meth:`Store.bot_cache`) and started from there, so editing the original
file never changes what a tournament plays.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.bots.package import command_template, runnable
from arena.bots.spec import BotSpec
from arena.core.names import NAME_RULE, valid_name
from arena.errors import ArenaError, UnknownBot
from arena.storage import BotVersion, Store, content_sha256


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


class Check(Protocol):
    """What a bot's check reports (``arena.referee.check.CheckReport``): whether it passed, as JSON."""

    @property
    def ok(self) -> bool: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Added:
    """What :func:`add_checked` did: ``stored`` a new version, or not, because the current version
    already has this content (then ``version`` is that one and the bot was not run: no
    ``check``) or because the check failed (no ``version``)."""

    name: str
    sha256: str
    stored: bool
    version: BotVersion | None
    check: Check | None


def unchanged(store: Store, name: str, game: str, content: bytes) -> BotVersion | None:
    """``name``'s current version if it already has ``content`` (nothing to add), else None; an
    :class:`ArenaError` if the name is another game's bot.  An older version's content is not
    unchanged: added again, it is checked and becomes the current version."""
    current = store.bot(name) if store.bot_history(name) else None
    if current is not None and current.game != game:
        raise ArenaError(f"bot {name!r} is registered for {current.game}, not {game}; "
                         "choose another name for this bot")
    return current if current is not None and current.sha256 == content_sha256(content) else None


def add_checked(path: Path, *, name: str, game: str, check: Callable[[], Check],
                existing: Callable[[], AbstractContextManager[Store]] | None,
                writable: Callable[[], AbstractContextManager[Store]]) -> Added:
    """Register the bot file ``path`` as ``name`` if it passes its ``check`` (called only when
    needed), unless its content is already the current version.

    What is stored is read first (``existing``: how to open the store, None where there is none
    yet), so that an unchanged bot is not run and a name taken by the other game is refused
    before the check; the store is opened for writing (``writable``, which may create it) only
    for a bot that passed, so that a failed check leaves no new database behind."""
    content = Path(path).read_bytes()
    sha = content_sha256(content)
    if existing is not None:
        with existing() as store:
            current = unchanged(store, name, game, content)
        if current is not None:
            return Added(name, sha, False, current, None)
    report = check()
    if not report.ok:
        return Added(name, sha, False, None, report)
    with writable() as store:
        version = register(store, path, name=name, game=game, check_report=report.to_json())
    return Added(name, version.sha256, True, version, report)
