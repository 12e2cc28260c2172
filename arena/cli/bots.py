"""``arena bots``: the bot registry (``add``, ``list``, ``show``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from functools import partial
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from arena.cli.options import (
    DEFAULT_DB,
    GAMES,
    LIMITS,
    Db,
    DecisionMs,
    Format,
    GameMs,
    Json,
    ReadDb,
    Sandbox,
    StartupMs,
    bot_name,
    bot_package,
    db_exists,
    find_game,
    game_filter,
    open_db,
    output_format,
    referee_config,
)
from arena.cli.output import Report, echo_json, echo_lines, echo_listing
from arena.errors import ArenaError, UsageError

if TYPE_CHECKING:
    from arena.storage import BotVersion, Store
    from arena.storage.registry import Added

COLUMNS = ("name", "game", "version", "versions", "games")


def add(
    path: Annotated[str, typer.Argument(help="The bot: a file (.py, .js, an executable), a folder or .zip/.tar.gz with a bot.toml, or a command line.")],
    name: Annotated[Optional[str], typer.Option(help="Name to register it under (default: its bot.toml's name, or the file's stem); a changed bot becomes a new version.")] = None,
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Game the bot plays ({GAMES}); default: the one its bot.toml names.")] = None,
    make_current: Annotated[bool, typer.Option("--make-current", help="If the name already has this content as an older version, make that version current again.")] = False,
    db: Db = DEFAULT_DB,
    sandbox: Sandbox = "auto",
    decision_ms: DecisionMs = LIMITS.decision_ms,
    game_ms: GameMs = LIMITS.game_ms,
    startup_ms: StartupMs = LIMITS.startup_ms,
    json_out: Annotated[bool, typer.Option("--json", help="Print the outcome and the check report as JSON.")] = False,
) -> None:
    """Validate a bot (as `arena check` does, with the time limits of the tournaments it will
    play) and store it whole (a folder as one archive) with its content hash.

    Example: arena bots add bots/reactor_strong.py --name strong --game reactor
    """
    from arena.bots.package import unpacked
    from arena.referee.check import check_bot
    from arena.storage.registry import add_checked

    # Everything the user typed is checked before the bot is run.
    package = bot_package(path)
    name = bot_name(name or package.name or "")
    game_name = find_game(game or _manifest_game(package.games)).name
    if package.games and game_name not in package.games:
        raise UsageError(f"{path}: its bot.toml says it plays {', '.join(package.games)}, not {game_name}")
    spec = unpacked(package, name)  # what is checked is what is stored
    referee = referee_config(sandbox, decision_ms, game_ms, startup_ms)
    added = add_checked(package, name=name, game=game_name, make_current=make_current,
                        check=lambda: _shown(check_bot(spec, game_name, config=referee), json_out),
                        existing=partial(open_db, db) if db_exists(db) else None,
                        writable=partial(open_db, db, create=True))
    _say_added(added, db, json_out)


def _manifest_game(games: tuple[str, ...]) -> str:
    if len(games) != 1:
        raise UsageError("give the bot's game with --game" + (f" (its bot.toml names {', '.join(games)})" if games else ""))
    return games[0]


def _shown(report: Report, json_out: bool) -> Report:
    """The check's report, shown as soon as it is made (--json prints it with the outcome)."""
    if not json_out:
        echo_lines(report.lines())
    return report


def _say_added(added: Added, db: str, json_out: bool) -> None:
    """What `bots add` came to: a new version, the content it already had, or a failed check (status 1)."""
    check = added.check.to_json() if added.check is not None else None
    version = added.version
    if version is None:
        if json_out:
            echo_json({"registered": False, "name": added.name, "reason": "the check failed", "check": check})
        raise ArenaError(f"{added.name} was not registered: fix the problems "
                         f"{'in the check report' if json_out else 'above'} and add it again")
    current = added.current.version if added.current is not None else version.version
    if json_out:
        echo_json({"registered": True, "name": version.name, "version": version.version, "sha256": version.sha256,
                   "current": current, "check": check} if added.stored else
                  {"registered": False, "name": added.name, "version": version.version, "sha256": added.sha256,
                   "current": current, "reason": "the name already has this content"})
    elif added.stored:
        typer.echo(f"registered {version.name} version {version.version} (sha256 {version.sha256[:12]}) in {db}")
    elif current == version.version:
        typer.echo(f"{added.name} version {version.version} already has this content (sha256 {added.sha256[:12]}) "
                   f"in {db}: " + ("it is the current version again" if added.made_current else "nothing to add"))
    else:
        typer.echo(f"{added.name} version {version.version} already has this content (sha256 {added.sha256[:12]}) "
                   f"in {db}; the current version stays {current} (add --make-current to make version "
                   f"{version.version} current again, or name it {added.name}@{version.version})")



def list_bots(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Only bots of this game ({GAMES}).")] = None,
    db: ReadDb = DEFAULT_DB,
    fmt: Format = None,
    json_out: Json = False,
) -> None:
    """List registered bots with their current version and games played.

    Example: arena bots list --game reactor
    """
    fmt = output_format(fmt, json_out)
    game = game_filter(game)
    rows = []
    if db_exists(db):  # a folder with no database yet has no bots: an empty list, not an error
        with open_db(db) as store:
            rows = store.bots(game)
    which = f"no {game} bots" if game else "no bots"
    echo_listing(COLUMNS, [[r.name, r.game, str(r.version), str(r.versions), str(r.games)] for r in rows], fmt,
                 [asdict(r) for r in rows], f"{which} in {db}; add one with `arena bots add PATH --name NAME --game GAME`",
                 right=frozenset({"version", "versions", "games"}))


def show(
    name: Annotated[str, typer.Argument(help="A registered bot.")],
    db: ReadDb = DEFAULT_DB,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show a bot's current version, its command, hash and check report.

    Example: arena bots show reactor-strong --json
    """
    with open_db(db) as store:
        version, history, games = store.bot(name), store.bot_history(name), store.bot_games(name)
    if json_out:
        echo_json({**asdict(version), "games": games,
                   "versions": [{"version": v.version, "sha256": v.sha256, "added": v.added} for v in history]})
    else:
        echo_lines(_show_lines(version, history, games))


def _show_lines(version: BotVersion, history: list[BotVersion], games: int) -> Iterator[str]:
    """`bots show` as text: the current version, how it runs, its check, and the versions before it."""
    report = version.check_report
    yield (f"{version.name}: {version.game} bot, version {version.version}, added {version.added}; "
           f"{games} game(s) played by its versions together")
    yield f"  file: {version.filename} (sha256 {version.sha256})"
    yield f"  command: {' '.join(version.command)}"
    if report.get("source"):
        yield f"  registered from: {report['source']}"
    if "ok" in report:
        yield (f"  check: {'OK' if report['ok'] else 'FAILED'}: {report.get('decisions')} decision(s), "
               f"median {report.get('median_ms')} ms, max {report.get('max_ms')} ms per decision")
    if len(history) > 1:
        yield "  versions:"
        for v in history:
            yield f"    {v.version}  sha256 {v.sha256[:12]}  added {v.added}"


def remove(
    name: Annotated[str, typer.Argument(help="A registered bot.")],
    db: ReadDb = DEFAULT_DB,
) -> None:
    """Take a bot out of the registry.  A bot that has played keeps its games (and their
    ratings) under its name; only new tournaments can no longer name it.

    Example: arena bots remove old-dumper
    """
    with _existing(db) as store:
        games = store.remove_bot(name)
    typer.echo(f"removed {name} from {db}" + (f"; its {games} game(s) stay, under its name" if games else ""))


def rename(
    name: Annotated[str, typer.Argument(help="A registered bot.")],
    new: Annotated[str, typer.Argument(help="Its new name.")],
    db: ReadDb = DEFAULT_DB,
) -> None:
    """Give a bot (all its versions) a new name.  Stored games keep the name they were played
    under: ratings of past tournaments do not change.

    Example: arena bots rename dumper dumper-classic
    """
    bot_name(new)
    with _existing(db) as store:
        games = store.rename_bot(name, new)
    typer.echo(f"renamed {name} to {new} in {db}"
               + (f"; its {games} game(s) keep the name {name}" if games else ""))


def _existing(db: str) -> Store:
    """The database, to change: it must be there already (removing makes no new one)."""
    if not db_exists(db):
        raise UsageError(f"no database at {db} (check --db)")
    return open_db(db, create=True)
