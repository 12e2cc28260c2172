"""``arena bots``: the bot registry (``add``, ``list``, ``show``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from arena.cli.options import (
    DEFAULT_DB,
    GAMES,
    LIMITS,
    BotGame,
    Db,
    DecisionMs,
    Format,
    GameMs,
    Json,
    ReadDb,
    Sandbox,
    StartupMs,
    bot_file,
    bot_name,
    db_exists,
    find_game,
    game_filter,
    open_db,
    output_format,
    referee_config,
)
from arena.cli.output import Report, echo_json, echo_lines, echo_listing
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.storage import BotVersion
    from arena.storage.registry import Added

COLUMNS = ("name", "game", "version", "versions", "games")


def add(
    path: Annotated[Path, typer.Argument(help="The bot's file (.py, .js, or an executable).")],
    name: Annotated[str, typer.Option(help="Name to register it under; a changed file becomes a new version.")],
    game: BotGame,
    db: Db = DEFAULT_DB,
    sandbox: Sandbox = "auto",
    decision_ms: DecisionMs = LIMITS.decision_ms,
    game_ms: GameMs = LIMITS.game_ms,
    startup_ms: StartupMs = LIMITS.startup_ms,
    json_out: Annotated[bool, typer.Option("--json", help="Print the outcome and the check report as JSON.")] = False,
) -> None:
    """Validate a bot (as `arena check` does, with the time limits of the tournaments it will
    play) and store it with its content and hash.

    Example: arena bots add bots/reactor_strong.py --name strong --game reactor
    """
    from arena.referee.check import check_bot
    from arena.storage.registry import add_checked

    # Everything the user typed is checked before the bot is run.
    bot_name(name)
    game_name = find_game(game).name
    spec = bot_file(path, name)
    referee = referee_config(sandbox, decision_ms, game_ms, startup_ms)
    added = add_checked(path, name=name, game=game_name,
                        check=lambda: _shown(check_bot(spec, game_name, config=referee), json_out),
                        existing=partial(open_db, db) if db_exists(db) else None,
                        writable=partial(open_db, db, create=True))
    _say_added(added, db, json_out)


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
    if json_out:
        echo_json({"registered": True, "name": version.name, "version": version.version, "sha256": version.sha256,
                   "check": check} if added.stored else
                  {"registered": False, "name": added.name, "version": version.version, "sha256": added.sha256,
                   "reason": "this content is already the current version"})
    elif added.stored:
        typer.echo(f"registered {version.name} version {version.version} (sha256 {version.sha256[:12]}) in {db}")
    else:
        typer.echo(f"{added.name} version {version.version} already has this content (sha256 {added.sha256[:12]}) "
                   f"in {db}: nothing to add")


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
