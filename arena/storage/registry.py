"""The bot registry: bots stored by content, so a tournament is reproducible.

Registering a bot stores its file (or its folder, as one tar: :mod:`arena.bots.folder`) and a
command template (``["python", "{file}"]``); a changed file becomes a new version and the
current one, while content the name already has keeps its old version number and leaves the
current version alone unless asked (``make_current``).  A version is named ``NAME@N`` or
``NAME@HASH-PREFIX`` (:func:`find_version`).  :func:`add_checked` registers a bot only once it has passed a check
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

from arena.bots.package import Package, is_folder, pack_target, runnable
from arena.bots.spec import BotSpec
from arena.core.names import NAME_RULE, valid_name
from arena.errors import ArenaError, UnknownBot
from arena.storage import BotVersion, Store, content_sha256


def register(store: Store, target: str | Path | Package, *, name: str, game: str,
             check_report: dict[str, Any] | None = None, make_current: bool = False) -> BotVersion:
    """Store a bot (a file, a folder or archive with a ``bot.toml``, or a command line) under
    ``name``: a new version if its content changed."""
    if not valid_name(name):
        raise UnknownBot(f"bot name {name!r} is not allowed: a name is {NAME_RULE}")
    package = target if isinstance(target, Package) else pack_target(str(target))
    if package.games and game not in package.games:
        raise UnknownBot(f"bot {name!r}: its bot.toml says it plays {', '.join(package.games)}, not {game}")
    report = dict(check_report or {})
    if package.source:
        report.setdefault("source", package.source)
    return store.add_bot_version(name, game, package.filename, package.content, list(package.command), report,
                                 make_current=make_current)


def find_version(store: Store, ref: str) -> BotVersion:
    """The version ``ref`` names: ``NAME`` (its current version), ``NAME@N`` or ``NAME@PREFIX``
    (of its content's sha256, at least 4 hex digits)."""
    name, _, which = ref.partition("@")
    if not which:
        return store.bot(name)
    history = store.bot_history(name)
    if not history:
        store.bot(name)  # the error that lists the bots there are
    numbers = ", ".join(f"@{v.version} ({v.sha256[:8]})" for v in history)
    if which.isdigit() and not (len(which) >= 4 and any(v.sha256.startswith(which) for v in history)):
        found = [v for v in history if v.version == int(which)]
    elif len(which) >= 4 and all(c in "0123456789abcdef" for c in which.lower()):
        found = [v for v in history if v.sha256.startswith(which.lower())]
    else:
        raise UnknownBot(f"{ref!r}: after @ give a version number or 4+ hex digits of its sha256 ({name} has {numbers})")
    if len(found) != 1:
        raise UnknownBot(f"{ref!r} names {'no' if not found else 'more than one'} version of {name} "
                         f"(it has {numbers})")
    return found[0]


def materialize(store: Store, version: BotVersion) -> BotSpec:
    """A runnable :class:`BotSpec` for a stored version (its file written once into the store's
    bot cache)."""
    env: list[tuple[str, str]] = []
    source = version.check_report.get("source")
    if "node" in version.command and source and not is_folder(version.command):
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
    current: BotVersion | None = None  # the name's current version after it
    made_current: bool = False  # an older version with this content made current (``make_current``)

def unchanged(store: Store, name: str, game: str, content: bytes) -> BotVersion | None:
    """``name``'s version that already has ``content`` (nothing to add), else None; an
    :class:`ArenaError` if the name is another game's bot."""
    history = store.bot_history(name)
    if history and history[0].game != game:
        raise ArenaError(f"bot {name!r} is registered for {history[0].game}, not {game}; "
                         "choose another name for this bot")
    sha = content_sha256(content)
    return next((v for v in history if v.sha256 == sha), None)


def add_checked(package: Package, *, name: str, game: str, check: Callable[[], Check],
                existing: Callable[[], AbstractContextManager[Store]] | None,
                writable: Callable[[], AbstractContextManager[Store]], make_current: bool = False) -> Added:
    """Register ``package`` as ``name`` if it passes its ``check`` (called only when needed),
    unless the name already has this content (then that version is made current only if
    ``make_current``).

    What is stored is read first (``existing``: how to open the store, None where there is none
    yet), so that an unchanged bot is not run and a name taken by the other game is refused
    before the check; the store is opened for writing (``writable``, which may create it) only
    for a bot that passed, so that a failed check leaves no new database behind."""
    sha = package.sha256
    if existing is not None:
        with existing() as store:
            same = unchanged(store, name, game, package.content)
            current = current_version(store, name)
        if same is not None:
            # A removed name (no current version) with this content is taken again: made current.
            made = (make_current or current is None) and current != same
            if made:
                with writable() as store:
                    same = current = register(store, package, name=name, game=game, make_current=True)
            return Added(name, sha, False, same, None, current, made)
    report = check()
    if not report.ok:
        return Added(name, sha, False, None, report)
    with writable() as store:
        version = register(store, package, name=name, game=game, check_report=report.to_json())
    return Added(name, version.sha256, True, version, report, version)


def current_version(store: Store, name: str) -> BotVersion | None:
    """The name's current version, or None for a name not registered (or removed: free again)."""
    try:
        return store.bot(name)
    except UnknownBot:
        return None
