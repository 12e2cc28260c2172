"""The options that several commands share, and the checks of what a user typed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.errors import ConfigError, UsageError
from arena.games import REGISTRY
from protocol.messages import MAX_DECISION_MS, MAX_GAME_MS, MAX_STARTUP_MS, Limits

GAMES = ", ".join(REGISTRY)


def check_writable(path: Path, option: str) -> None:
    """Fail now, as a bad argument, if ``path`` cannot be written (not after the work is done).
    Opened for appending, so an existing file is not changed here."""
    try:
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write {path} ({option}): {(exc.strerror or str(exc)).lower()}") from None


def find_game(name: str):
    """The game called ``name``; an unknown name is a bad argument whose message lists the games."""
    from arena.games import get_game

    try:
        return get_game(name)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


SANDBOX_HELP = "Sandbox: auto (bubblewrap if installed, else a warning), strict (refuse without it), none."


def sandbox_mode(text: str):
    """``--sandbox``'s value as a mode; anything else is a bad argument."""
    from arena.sandbox import Mode

    if text not in set(Mode):
        raise UsageError(f"--sandbox must be {Mode.choices()}, not {text!r}")
    return Mode(text)


def referee_config(sandbox: str, decision_ms: int, game_ms: int, startup_ms: int):
    from arena.referee import RefereeConfig
    from protocol.messages import Limits

    return RefereeConfig(limits=Limits(decision_ms=decision_ms, game_ms=game_ms, startup_ms=startup_ms),
                         sandbox_mode=sandbox_mode(sandbox))


def game_config(game_name: str, players: int, variants: list[str] | None, points: int | None):
    from arena.games import GameConfig

    game = find_game(game_name)
    try:
        config = GameConfig(players=players, variants=tuple(variants or ()), points=points)
        game.check_config(config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return game, config


def bot_specs(targets: list[str], name: str | None = None):
    """Resolve bot arguments now, so a wrong path is a usage error (status 2)."""
    from arena.errors import UnknownBot
    from arena.referee import bot_spec

    try:
        return [bot_spec(t, name) for t in targets]
    except UnknownBot as exc:
        raise UsageError(str(exc)) from None


# The time limits, alike wherever a bot is checked or played; their defaults are the protocol's.
LIMITS = Limits()
DecisionMs = Annotated[int, typer.Option(min=1, max=MAX_DECISION_MS, help="Time limit per decision (ms).")]
GameMs = Annotated[int, typer.Option(min=1, max=MAX_GAME_MS, help="Time budget per bot per game (ms).")]
StartupMs = Annotated[int, typer.Option(min=1, max=MAX_STARTUP_MS, help="Time limit for a bot to start and say hello (ms).")]


DB_HELP = "SQLite database file, or sqlite:///PATH (created if missing)."
READ_DB_HELP = "SQLite database file, or sqlite:///PATH (written by `arena run` or `arena bots add`)."
# --db: where the store is, as open_store reads it (a file path, :memory:, or a URL such as
# sqlite:///arena.db); a string, since only the store's backend knows what it names.
Db = Annotated[str, typer.Option(help=DB_HELP, metavar="<db>")]
ReadDb = Annotated[str, typer.Option(help=READ_DB_HELP, metavar="<db>")]
DEFAULT_DB = "arena.db"
FORMAT_HELP = "Output format: table, csv, json or markdown [default: table]."
JSON_HELP = "Print JSON (the same as --format json)."


def open_db(db: str, *, create: bool = False):
    """Open the database.  Only commands that write (``create``) make a new one: a read-only
    command given a path where there is none says so, instead of creating an empty database."""
    from arena.errors import NoDatabase, StorageError
    from arena.storage import open_store

    try:
        return open_store(db, create=create, readonly=not create)
    except NoDatabase as exc:
        raise UsageError(f"{exc} (check --db; `arena run` and `arena bots add` create one)") from None
    except StorageError as exc:  # not a store arena can use: a bad --db
        raise UsageError(str(exc)) from None


def db_exists(db: str) -> bool:
    """Whether there is a database at ``db``; where there is none and none could be made (no
    such folder, an unknown scheme) a bad argument, before any work is done."""
    from arena.errors import StorageError
    from arena.storage import store_exists

    try:
        return store_exists(db)
    except StorageError as exc:
        raise UsageError(str(exc)) from None


def output_format(fmt: str | None, json_out: bool) -> str:
    """The output format of `run` and `ratings`: ``--format``, or ``--json`` for json; checked
    before any work is done."""
    from arena.cli.output import FORMATS

    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"--format must be {', '.join(FORMATS[:-1])} or {FORMATS[-1]}, not {fmt!r}")
    if json_out and fmt not in (None, "json"):
        raise UsageError(f"--json and --format {fmt} contradict each other; give one of them")
    return "json" if json_out else fmt or "table"


def game_filter(name: str | None) -> str | None:
    """A --game filter: the game's name (an unknown game is a bad argument listing the games)."""
    return None if name is None else find_game(name).name


def check_tournament(store, tournament: str | None) -> None:
    """A --tournament filter must name a stored tournament (else an error that says so)."""
    if tournament is not None:
        store.tournament(tournament)
