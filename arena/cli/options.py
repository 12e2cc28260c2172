"""The options several commands share, each declared once, and the checks of what a user typed.

An option is an ``Annotated`` type (its flag, help and bounds) that a command names in its
signature, so that ``--db``, ``--format``, ``--json``, ``--sandbox``, the time limits and the
game mean the same wherever they appear; an option that one command alone has stays in its
signature.  The checks turn a value into what the library takes (a game, a referee config, a
store) and the library's refusal of it into a bad argument (:class:`UsageError`, status 2):
what a value may be is for the library to say.  They run before any work is done, in the
order a command calls them, so that a command reports the same error first as it always did.

What is costly to import (the referee, the sandbox, the storage, the tournament, the bot
packager) is imported inside the check that needs it: see the package's docstring.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from arena.bots.resolve import bot_spec
from arena.bots.spec import BotSpec
from arena.cli.output import FORMATS
from arena.core.names import NAME_RULE, valid_name
from arena.errors import ConfigError, NoDatabase, StorageError, UnknownBot, UsageError
from arena.games import REGISTRY, Game, GameConfig, get_game
from protocol.messages import MAX_DECISION_MS, MAX_GAME_MS, MAX_STARTUP_MS, Limits

if TYPE_CHECKING:
    from arena.bots.package import Package
    from arena.referee import RefereeConfig
    from arena.sandbox import Mode
    from arena.storage import Store
    from arena.tournament.spec import TournamentSpec

GAMES = ", ".join(REGISTRY)
MAX_POINTS = 1000  # points that end a match: a series longer than anyone plays

# -- the game -------------------------------------------------------------------------------

GameArg = Annotated[str, typer.Argument(help=f"Game to play ({GAMES}).")]
BotGame = Annotated[str, typer.Option("--game", "-g", help=f"Game the bot plays ({GAMES}).")]
Variants = Annotated[Optional[list[str]], typer.Option("--variant", "-v", help="A variant switch (repeatable).")]
Points = Annotated[Optional[int], typer.Option(min=1, max=MAX_POINTS, help="Points that end a match (Powder Keg default 3).")]

# -- counts: every int a user types is bounded here, so that a huge one is a bad argument and not
# a traceback later (SQLite holds 64-bit ints; a fork per worker is not free) --------------------

MAX_COUNT = 1_000_000_000  # games listed, rounds, matches: more than any database or run holds
MAX_WORKERS = 256  # matches played at once on one machine (or a cluster's worker count)
Limit = Annotated[int, typer.Option(min=1, max=MAX_COUNT, help="At most this many games (newest first).")]
Round = Annotated[Optional[int], typer.Option("--round", "-r", min=1, max=MAX_COUNT, help="Only games of this round.")]
Workers = Annotated[int, typer.Option("--workers", "-w", min=1, max=MAX_WORKERS,
                                      help=f"Matches played in parallel (1-{MAX_WORKERS}; never more than there are jobs).")]

# -- playing bot programs: the sandbox and the time limits, whose defaults are the protocol's --

SANDBOX_HELP = "Sandbox: auto (bubblewrap if installed, else a warning), strict (refuse without it), none."
Sandbox = Annotated[str, typer.Option(help=SANDBOX_HELP)]
LIMITS = Limits()
DecisionMs = Annotated[int, typer.Option(min=1, max=MAX_DECISION_MS, help="Time limit per decision (ms).")]
GameMs = Annotated[int, typer.Option(min=1, max=MAX_GAME_MS, help="Time budget per bot per game (ms).")]
StartupMs = Annotated[int, typer.Option(min=1, max=MAX_STARTUP_MS, help="Time limit for a bot to start and say hello (ms).")]

# -- the database ---------------------------------------------------------------------------

# --db: where the store is, as open_store reads it (a file path, :memory:, or a URL such as
# sqlite:///arena.db); a string, since only the store's backend knows what it names.  Db for
# the commands that may create it (run, bots add), ReadDb for those that only read it.
DB_HELP = "SQLite database file, or sqlite:///PATH (created if missing)."
READ_DB_HELP = "SQLite database file, or sqlite:///PATH (written by `arena run` or `arena bots add`)."
Db = Annotated[str, typer.Option(help=DB_HELP, metavar="<db>")]
ReadDb = Annotated[str, typer.Option(help=READ_DB_HELP, metavar="<db>")]
DEFAULT_DB = "arena.db"
TournamentFilter = Annotated[Optional[str], typer.Option("--tournament", "-t", help="Only this tournament.")]

# -- output: a listing's format, and --json as its shorthand ---------------------------------

FORMAT_HELP = "Output format: table, csv, json or markdown [default: table]."
JSON_HELP = "Print JSON (the same as --format json)."
Format = Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)]
Json = Annotated[bool, typer.Option("--json", help=JSON_HELP)]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


# -- checks ---------------------------------------------------------------------------------


@contextmanager
def bad_argument(*kinds: type[Exception]) -> Iterator[None]:
    """The library's errors of these ``kinds``, raised in the block about what the user typed,
    as a bad argument (its message unchanged)."""
    try:
        yield
    except kinds as exc:
        raise UsageError(str(exc)) from None


def find_game(name: str) -> Game:
    """The game called ``name``; an unknown name is a bad argument whose message lists the games."""
    with bad_argument(ConfigError):
        return get_game(name)


def game_filter(name: str | None) -> str | None:
    """A --game filter: the game's name (an unknown game is a bad argument listing the games)."""
    return None if name is None else find_game(name).name


def game_config(name: str, players: int, variants: list[str] | None, points: int | None) -> tuple[Game, GameConfig]:
    """The game called ``name`` and a table of it that its rules allow."""
    game = find_game(name)
    with bad_argument(ConfigError):
        config = GameConfig(players=players, variants=tuple(variants or ()), points=points)
        game.check_config(config)
    return game, config


def bot_specs(targets: list[str], name: str | None = None) -> list[BotSpec]:
    """The bots that ``targets`` (paths or command lines) name, resolved now, so that a wrong
    path is a bad argument before any bot starts."""
    with bad_argument(UnknownBot):
        return [bot_spec(target, name) for target in targets]


def registered_or_given(targets: list[str], db: str) -> list[BotSpec]:
    """Each bot of ``arena play``: a path there is, a bot registered in ``db`` (``NAME``,
    ``NAME@N``, ``NAME@HASH``: its stored copy), else a command line."""
    from arena.storage.registry import find_version, materialize

    def registered(target: str) -> bool:
        return not Path(target).exists() and valid_name(target.partition("@")[0]) and (
            "@" in target or not _command(target))

    if not any(registered(t) for t in targets):
        return bot_specs(targets)
    if not db_exists(db):
        raise UsageError(f"{next(t for t in targets if registered(t))!r} is not a file or command, and there is no "
                         f"database at {db} to find it in (check --db)")
    store = open_db(db)
    specs = []
    for target in targets:
        if registered(target):
            with bad_argument(UnknownBot):
                specs.append(materialize(store, find_version(store, target)))
        else:
            specs.extend(bot_specs([target]))
    return specs  # the store stays open: a database in memory keeps its bots' folder till the end


def _command(target: str) -> bool:
    import shlex
    import shutil

    try:
        words = shlex.split(target)
    except ValueError:
        return False
    return bool(words) and shutil.which(words[0]) is not None


def bot_name(name: str) -> str:
    """A name to register a bot under, as the rules allow it."""
    if not valid_name(name):
        raise UsageError(f"--name {name!r} is not allowed: a bot name is {NAME_RULE}")
    return name


def bot_package(target: str) -> Package:
    """A bot to register (a file, a folder or archive with a ``bot.toml``, or a command line),
    packed as the registry stores it; what is wrong with it is a bad argument."""
    from arena.bots.package import pack_target

    with bad_argument(UnknownBot):
        return pack_target(target)


def sandbox_mode(text: str) -> Mode:
    """``--sandbox``'s value as a mode; anything else is a bad argument."""
    from arena.sandbox import Mode

    if text not in set(Mode):
        raise UsageError(f"--sandbox must be {Mode.choices()}, not {text!r}")
    return Mode(text)


def referee_config(sandbox: str, decision_ms: int, game_ms: int, startup_ms: int) -> RefereeConfig:
    """The referee of ``play``, ``check`` and ``bots add``: the sandbox and the time limits given."""
    from arena.referee import RefereeConfig

    return RefereeConfig(limits=Limits(decision_ms=decision_ms, game_ms=game_ms, startup_ms=startup_ms),
                         sandbox_mode=sandbox_mode(sandbox))


def tournament_file(path: Path) -> TournamentSpec:
    """The tournament file named on the command line; a missing or malformed one is a bad argument."""
    from arena.tournament.file import load_tournament

    with bad_argument(ConfigError):
        return load_tournament(path)


def check_writable(path: Path, option: str) -> None:
    """Fail now, as a bad argument, if ``path`` cannot be written (not after the work is done).
    Opened for appending, so an existing file is not changed here."""
    try:
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write {path} ({option}): {(exc.strerror or str(exc)).lower()}") from None


def output_format(fmt: str | None, json_out: bool) -> str:
    """The output format from ``--format``, or ``--json`` for json; checked before any work is done."""
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"--format must be {', '.join(FORMATS[:-1])} or {FORMATS[-1]}, not {fmt!r}")
    if json_out and fmt not in (None, "json"):
        raise UsageError(f"--json and --format {fmt} contradict each other; give one of them")
    return "json" if json_out else fmt or "table"


def open_db(db: str, *, create: bool = False) -> Store:
    """Open the database.  Only commands that write (``create``) make a new one: a read-only
    command given a path where there is none says so, instead of creating an empty database."""
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
    from arena.storage import store_exists

    with bad_argument(StorageError):
        return store_exists(db)


def check_filters(store: Store, *, tournament: str | None = None, game: str | None = None,
                  bot: str | None = None) -> None:
    """Filters of a listing that must name what is stored: a tournament and a bot (an error that
    says so, status 1), and a tournament of the --game asked for (a contradiction, status 2)."""
    if tournament is not None:
        found = store.tournament(tournament)
        if game is not None and found.game != game:
            raise UsageError(f"tournament {tournament!r} is a {found.game} tournament, not {game}: drop --game, "
                             f"or name a {game} tournament")
    if bot is not None:
        from arena.storage.registry import find_version

        find_version(store, bot)  # an unknown name is an error listing the bots; NAME@N is a version's label
