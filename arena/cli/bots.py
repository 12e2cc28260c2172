"""``arena bots``: the bot registry (``add``, ``list``, ``show``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.cli.options import (
    DEFAULT_DB,
    FORMAT_HELP,
    GAMES,
    JSON_HELP,
    LIMITS,
    SANDBOX_HELP,
    DecisionMs,
    Db,
    GameMs,
    ReadDb,
    StartupMs,
    bot_specs,
    db_exists,
    game_config,
    game_filter,
    open_db,
    output_format,
    referee_config,
)
from arena.cli.output import echo_json, echo_listing
from arena.core.terminal import safe
from arena.errors import ArenaError, UsageError


def bots_add(
    path: Annotated[Path, typer.Argument(help="The bot's file (.py, .js, or an executable).")],
    name: Annotated[str, typer.Option(help="Name to register it under; a changed file becomes a new version.")],
    game: Annotated[str, typer.Option("--game", "-g", help=f"Game the bot plays ({GAMES}).")],
    db: Db = DEFAULT_DB,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = "auto",
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
    from arena.errors import UnknownBot
    from arena.bots.package import command_template
    from arena.core.names import NAME_RULE, valid_name
    from arena.storage.registry import register
    from arena.storage import content_sha256

    # Everything the user typed is checked before the bot is run.
    if not valid_name(name):
        raise UsageError(f"--name {name!r} is not allowed: a bot name is {NAME_RULE}")
    game_obj, _ = game_config(game, 2, None, None)
    if not path.is_file():
        raise UsageError(f"no bot file at {path}")
    try:
        command_template(path)
    except UnknownBot as exc:
        raise UsageError(str(exc)) from None
    spec = bot_specs([str(path)], name)[0]
    if db_exists(db):  # what the database already says, before the bot is run (or where it can be stored)
        with open_db(db) as store:
            history = store.bot_history(name)
            current = store.bot(name) if history else None
        if current is not None and current.game != game_obj.name:
            raise ArenaError(f"bot {name!r} is registered for {current.game}, not {game_obj.name}; "
                             "choose another name for this bot")
        sha = content_sha256(path.read_bytes())
        if current is not None and current.sha256 == sha:  # (an older version's content is checked and made current again)
            if json_out:
                echo_json({"registered": False, "name": name, "version": current.version, "sha256": sha,
                           "reason": "this content is already the current version"})
                return
            typer.echo(f"{name} version {current.version} already has this content (sha256 {sha[:12]}) in {db}: "
                       "nothing to add")
            return
    report = check_bot(spec, game_obj.name, config=referee_config(sandbox, decision_ms, game_ms, startup_ms))
    if not json_out:
        for line in report.lines():
            typer.echo(safe(line))
    if not report.ok:
        if json_out:
            echo_json({"registered": False, "name": name, "reason": "the check failed", "check": report.to_json()})
        typer.echo(f"error: {name} was not registered: fix the problems "
                   f"{'in the check report' if json_out else 'above'} and add it again", err=True)
        raise typer.Exit(1)
    with open_db(db, create=True) as store:
        version = register(store, path, name=name, game=game_obj.name, check_report=report.to_json())
    if json_out:
        echo_json({"registered": True, "name": version.name, "version": version.version,
                   "sha256": version.sha256, "check": report.to_json()})
        return
    typer.echo(f"registered {version.name} version {version.version} (sha256 {version.sha256[:12]}) in {db}")


def bots_list(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Only bots of this game ({GAMES}).")] = None,
    db: ReadDb = DEFAULT_DB,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """List registered bots with their current version and games played.

    Example: arena bots list --game reactor
    """
    from dataclasses import asdict

    fmt = output_format(fmt, json_out)
    game = game_filter(game)
    with open_db(db) as store:
        rows = store.bots(game)
    which = f"no {game} bots" if game else "no bots"
    echo_listing(("name", "game", "version", "versions", "games"),
                 [[r.name, r.game, str(r.version), str(r.versions), str(r.games)] for r in rows], fmt,
                 [asdict(r) for r in rows],
                 f"{which} in {db}; add one with `arena bots add PATH --name NAME --game GAME`",
                 right=frozenset({"version", "versions", "games"}))


def bots_show(
    name: Annotated[str, typer.Argument(help="A registered bot.")],
    db: ReadDb = DEFAULT_DB,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show a bot's current version, its command, hash and check report.

    Example: arena bots show reactor-strong --json
    """
    from dataclasses import asdict

    with open_db(db) as store:
        version = store.bot(name)
        history = store.bot_history(name)
        games = store.bot_games(name)
    if json_out:
        echo_json({**asdict(version), "games": games,
                   "versions": [{"version": v.version, "sha256": v.sha256, "added": v.added} for v in history]})
        return
    report = version.check_report
    typer.echo(f"{version.name}: {version.game} bot, version {version.version}, added {version.added}; "
               f"{games} game(s) played by its versions together")
    typer.echo(f"  file: {version.filename} (sha256 {version.sha256})")
    typer.echo(f"  command: {' '.join(version.command)}")
    if report.get("source"):
        typer.echo(f"  registered from: {report['source']}")
    if "ok" in report:
        typer.echo(f"  check: {'OK' if report['ok'] else 'FAILED'}: {report.get('decisions')} decision(s), "
                   f"median {report.get('median_ms')} ms, max {report.get('max_ms')} ms per decision")
    if len(history) > 1:
        typer.echo("  versions:")
        for v in history:
            typer.echo(f"    {v.version}  sha256 {v.sha256[:12]}  added {v.added}")
