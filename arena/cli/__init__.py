"""The ``arena`` command line: a thin layer over the library.

Every error a user can cause ends as one line on stderr and a non-zero exit status, never a
traceback: 2 for bad arguments (an unknown command, option or value, or a file named on the
command line that is missing or unusable: a bot, a tournament file, a database, an output file),
1 for everything else (a bot that fails its check, a name not found in the database, a failed
match).  A run stopped with Ctrl-C says so and exits with 130.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

try:  # Typer 0.2x vendors Click; older releases use the click package
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the installed Typer
    from click import exceptions as click_errors

from arena.errors import ArenaError, ConfigError, UsageError
from arena.games import REGISTRY, GameError
from arena.core.terminal import report_to_stderr, safe
from protocol.messages import MAX_DECISION_MS, MAX_GAME_MS, MAX_STARTUP_MS, Limits

app = typer.Typer(
    name="arena",
    help="Tournament and bot-competition harness for Reactor and Powder Keg.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

GAMES = ", ".join(REGISTRY)


def _print_version(value: bool) -> None:
    if value:
        from arena import __version__

        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print arena's version and exit.")] = False,
) -> None:
    pass


@app.command()
def selfplay(
    game: Annotated[str, typer.Argument(help=f"Game to play ({GAMES}).")],
    players: Annotated[int, typer.Option("--players", "-n", help="Seats at the table.")] = 4,
    games: Annotated[int, typer.Option("--games", "-k", min=1, help="Matches to play: each a series of games to --points (a Reactor match is one game unless --points says more).")] = 1,
    seed: Annotated[str, typer.Option(help="Root seed; the same arguments give the same file, byte for byte.")] = "0",
    variant: Annotated[Optional[list[str]], typer.Option("--variant", "-v", help="A variant switch (repeatable).")] = None,
    bot: Annotated[Optional[list[str]], typer.Option(help="Built-in bot: random, heuristic or strong (or the reference policies tuned for Reactor, counting for Powder Keg; repeat to fill seats in turn).")] = None,
    points: Annotated[Optional[int], typer.Option(min=1, help="Points that end a match (Powder Keg default 3).")] = None,
    out: Annotated[Path, typer.Option(help="Where to write the records (JSON lines, one game per line; - for stdout).")] = Path("selfplay.jsonl"),
) -> None:
    """Play games in-process between built-in bots and write one record per game.

    Example: arena selfplay powder-keg --players 4 --games 10 --seed 7 --variant short-hands --out keg.jsonl
    """
    from arena.games.selfplay import SelfPlaySpec, iter_records
    from arena.cli.jsonio import write_jsonl

    spec = SelfPlaySpec(
        game=game, players=players, matches=games, seed=seed,
        variants=tuple(variant or ()), bots=tuple(bot or ("random",)), points=points,
    )
    _check_selfplay(spec)
    to_stdout = str(out) == "-"  # the records alone on stdout, for a pipe; the summary on stderr
    if not to_stdout:
        _check_writable(out, "--out")
    try:
        count, wins = write_jsonl(sys.stdout.buffer if to_stdout else out, iter_records(spec))
    except OSError as exc:
        raise ArenaError(f"cannot write {out}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {count} game record{'' if count == 1 else 's'} to {'stdout' if to_stdout else out}; "
               f"wins by seat: {wins}",
               err=to_stdout)


def _check_writable(path: Path, option: str) -> None:
    """Fail now, as a bad argument, if ``path`` cannot be written (not after the work is done).
    Opened for appending, so an existing file is not changed here."""
    try:
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write {path} ({option}): {(exc.strerror or str(exc)).lower()}") from None


def _game(name: str):
    """The game called ``name``; an unknown name is a bad argument whose message lists the games."""
    from arena.games import get_game

    try:
        return get_game(name)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _check_selfplay(spec) -> None:
    from arena.games import GameConfig
    from arena.games.policy import policy_names

    game = _game(spec.game)
    try:
        game.check_config(GameConfig(players=spec.players, variants=spec.variants, points=spec.points))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    for name in spec.bots:
        if name not in policy_names(game.name):
            raise UsageError(f"no built-in bot {name!r} (bots: {', '.join(policy_names(game.name))})")
    if len(spec.bots) > spec.players:  # a --bot for a seat that is not there would be dropped silently
        raise UsageError(f"{len(spec.bots)} --bot options for {spec.players} seats; give at most one per seat")


SANDBOX_HELP = "Sandbox: auto (bubblewrap if installed, else a warning), strict (refuse without it), none."


def _sandbox_mode(text: str):
    """``--sandbox``'s value as a mode; anything else is a bad argument."""
    from arena.sandbox import Mode

    if text not in set(Mode):
        raise UsageError(f"--sandbox must be {Mode.choices()}, not {text!r}")
    return Mode(text)


def _referee_config(sandbox: str, decision_ms: int, game_ms: int, startup_ms: int):
    from arena.referee import RefereeConfig
    from protocol.messages import Limits

    return RefereeConfig(limits=Limits(decision_ms=decision_ms, game_ms=game_ms, startup_ms=startup_ms),
                         sandbox_mode=_sandbox_mode(sandbox))


def _game_config(game_name: str, players: int, variants: list[str] | None, points: int | None):
    from arena.games import GameConfig

    game = _game(game_name)
    try:
        config = GameConfig(players=players, variants=tuple(variants or ()), points=points)
        game.check_config(config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return game, config


def _bot_specs(targets: list[str], name: str | None = None):
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


@app.command()
def play(
    game: Annotated[str, typer.Argument(help=f"Game to play ({GAMES}).")],
    bots: Annotated[list[str], typer.Argument(help="Two or more bots: a path to a script (.py, .js) or a command line.")],
    games: Annotated[int, typer.Option("--games", "-k", min=1, help="Matches to play (a Powder Keg match is a series of games to --points).")] = 1,
    seed: Annotated[str, typer.Option(help="Root seed of the deals.")] = "0",
    variant: Annotated[Optional[list[str]], typer.Option("--variant", "-v", help="A variant switch (repeatable).")] = None,
    points: Annotated[Optional[int], typer.Option(min=1, help="Points that end a match (Powder Keg default 3).")] = None,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = "auto",
    decision_ms: DecisionMs = LIMITS.decision_ms,
    game_ms: GameMs = LIMITS.game_ms,
    startup_ms: StartupMs = LIMITS.startup_ms,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Play a match between bot programs and print places, scores and each bot's faults.

    Example: arena play reactor bots/random_bot.py bots/reactor_strong.py bots/random_bot.py --games 3
    """
    from arena.referee.play import play_matches

    if len(bots) < 2:
        raise UsageError("give at least two bots")
    _bot_specs(bots)
    game_obj, config = _game_config(game, len(bots), variant, points)
    summary = play_matches(game_obj, config, bots, matches=games, seed=seed,
                           referee=_referee_config(sandbox, decision_ms, game_ms, startup_ms))
    if json_out:
        _echo_json(summary.to_json())
    else:
        for line in summary.lines():
            typer.echo(safe(line))


@app.command()
def check(
    bot: Annotated[str, typer.Argument(help="The bot: a path to a script (.py, .js) or a command line.")],
    game: Annotated[str, typer.Option("--game", "-g", help=f"Game the bot plays ({GAMES}).")],
    players: Annotated[Optional[int], typer.Option("--players", "-n", help="Seats for the self-play game (default: the game's minimum).")] = None,
    matches: Annotated[int, typer.Option(min=1, max=1000, help="Self-play matches to play (Powder Keg: each again with every variant on).")] = 3,
    seed: Annotated[str, typer.Option(help="Root seed of the deals; the same --seed and --matches play the same deals again.")] = "check",
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = "auto",
    decision_ms: DecisionMs = LIMITS.decision_ms,
    game_ms: GameMs = LIMITS.game_ms,
    startup_ms: StartupMs = LIMITS.startup_ms,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Validate a bot: handshake, full self-play matches, timing; exit status 1 if it fails.

    The deals are the same on every run unless --seed changes them.  To catch a bug that shows
    up rarely, play more matches on fresh deals (the report names the seed, to re-run a failure):

    Stress: arena check bot.py --game reactor --matches 50 --seed $RANDOM

    Example: arena check bots/reactor_strong.py --game reactor
    """
    from arena.referee.check import check_bot

    game_obj, _ = _game_config(game, players or 2, None, None)
    report = check_bot(_bot_specs([bot])[0], game_obj.name, players=players, seed=seed, matches=matches,
                       config=_referee_config(sandbox, decision_ms, game_ms, startup_ms))
    if json_out:
        _echo_json(report.to_json())
    else:
        for line in report.lines():
            typer.echo(safe(line))
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def schema(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Print this game's schema instead ({GAMES}): what goes inside the messages.")] = None,
) -> None:
    """Print the protocol's JSON Schema (every message between referee and bot), or with --game a
    game's: its observation, actions, events and config.

    Example: arena schema --game reactor > reactor.schema.json
    """
    import json

    if game is None:
        from protocol.messages import schema as protocol_schema

        doc = protocol_schema()
    else:
        doc = _game(game).schema()
    typer.echo(json.dumps(doc, indent=2))


DB_HELP = "SQLite database file, or sqlite:///PATH (created if missing)."
READ_DB_HELP = "SQLite database file, or sqlite:///PATH (written by `arena run` or `arena bots add`)."
# --db: where the store is, as open_store reads it (a file path, :memory:, or a URL such as
# sqlite:///arena.db); a string, since only the store's backend knows what it names.
Db = Annotated[str, typer.Option(help=DB_HELP, metavar="<db>")]
ReadDb = Annotated[str, typer.Option(help=READ_DB_HELP, metavar="<db>")]
DEFAULT_DB = "arena.db"
FORMAT_HELP = "Output format: table, csv, json or markdown [default: table]."
JSON_HELP = "Print JSON (the same as --format json)."


def _store(db: str, *, create: bool = False):
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


def _exists(db: str) -> bool:
    """Whether there is a database at ``db``; where there is none and none could be made (no
    such folder, an unknown scheme) a bad argument, before any work is done."""
    from arena.errors import StorageError
    from arena.storage import store_exists

    try:
        return store_exists(db)
    except StorageError as exc:
        raise UsageError(str(exc)) from None


def _output_format(fmt: str | None, json_out: bool) -> str:
    """The output format of `run` and `ratings`: ``--format``, or ``--json`` for json; checked
    before any work is done."""
    from arena.cli.tables import FORMATS

    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"--format must be {', '.join(FORMATS[:-1])} or {FORMATS[-1]}, not {fmt!r}")
    if json_out and fmt not in (None, "json"):
        raise UsageError(f"--json and --format {fmt} contradict each other; give one of them")
    return "json" if json_out else fmt or "table"


def _echo_listing(columns: tuple[str, ...], rows: list[list[str]], fmt: str, records: list[dict],
                  hint: str, right: frozenset[str] = frozenset()) -> None:
    """Print a listing in ``fmt`` (see arena.cli.tables).  With nothing to list a table says ``hint``;
    a data format prints its empty form on stdout, so a script reads it as usual, and the hint
    on stderr."""
    from arena.cli.tables import render

    if not rows and fmt == "table":
        typer.echo(hint)
        return
    typer.echo(render(columns, rows, fmt, records, right).rstrip("\n"))  # echo adds the last newline
    if not rows:
        typer.echo(hint, err=True)


def _game_filter(name: str | None) -> str | None:
    """A --game filter: the game's name (an unknown game is a bad argument listing the games)."""
    return None if name is None else _game(name).name


bots_app = typer.Typer(help="Register bots and look at them.\n\nExample: arena bots list --game reactor",
                       no_args_is_help=True)
app.add_typer(bots_app, name="bots")


@bots_app.command("add")
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
    game_obj, _ = _game_config(game, 2, None, None)
    if not path.is_file():
        raise UsageError(f"no bot file at {path}")
    try:
        command_template(path)
    except UnknownBot as exc:
        raise UsageError(str(exc)) from None
    spec = _bot_specs([str(path)], name)[0]
    if _exists(db):  # what the database already says, before the bot is run (or where it can be stored)
        with _store(db) as store:
            history = store.bot_history(name)
            current = store.bot(name) if history else None
        if current is not None and current.game != game_obj.name:
            raise ArenaError(f"bot {name!r} is registered for {current.game}, not {game_obj.name}; "
                             "choose another name for this bot")
        sha = content_sha256(path.read_bytes())
        if current is not None and current.sha256 == sha:  # (an older version's content is checked and made current again)
            if json_out:
                _echo_json({"registered": False, "name": name, "version": current.version, "sha256": sha,
                            "reason": "this content is already the current version"})
                return
            typer.echo(f"{name} version {current.version} already has this content (sha256 {sha[:12]}) in {db}: "
                       "nothing to add")
            return
    report = check_bot(spec, game_obj.name, config=_referee_config(sandbox, decision_ms, game_ms, startup_ms))
    if not json_out:
        for line in report.lines():
            typer.echo(safe(line))
    if not report.ok:
        if json_out:
            _echo_json({"registered": False, "name": name, "reason": "the check failed", "check": report.to_json()})
        typer.echo(f"error: {name} was not registered: fix the problems "
                   f"{'in the check report' if json_out else 'above'} and add it again", err=True)
        raise typer.Exit(1)
    with _store(db, create=True) as store:
        version = register(store, path, name=name, game=game_obj.name, check_report=report.to_json())
    if json_out:
        _echo_json({"registered": True, "name": version.name, "version": version.version,
                    "sha256": version.sha256, "check": report.to_json()})
        return
    typer.echo(f"registered {version.name} version {version.version} (sha256 {version.sha256[:12]}) in {db}")


def _echo_json(data: object) -> None:
    """JSON on stdout, indented as every --json and --format json output is."""
    import orjson

    typer.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())


@bots_app.command("list")
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

    fmt = _output_format(fmt, json_out)
    game = _game_filter(game)
    with _store(db) as store:
        rows = store.bots(game)
    which = f"no {game} bots" if game else "no bots"
    _echo_listing(("name", "game", "version", "versions", "games"),
                  [[r.name, r.game, str(r.version), str(r.versions), str(r.games)] for r in rows], fmt,
                  [asdict(r) for r in rows],
                  f"{which} in {db}; add one with `arena bots add PATH --name NAME --game GAME`",
                  right=frozenset({"version", "versions", "games"}))


@bots_app.command("show")
def bots_show(
    name: Annotated[str, typer.Argument(help="A registered bot.")],
    db: ReadDb = DEFAULT_DB,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show a bot's current version, its command, hash and check report.

    Example: arena bots show reactor-strong --json
    """
    from dataclasses import asdict

    with _store(db) as store:
        version = store.bot(name)
        history = store.bot_history(name)
        games = store.bot_games(name)
    if json_out:
        _echo_json({**asdict(version), "games": games,
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


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Tournament file (TOML), e.g. tournaments/quickstart-reactor.toml.")],
    db: Db = DEFAULT_DB,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Matches played in parallel.")] = 1,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP + " With csv, json or markdown only the ratings go to stdout.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    cluster: Annotated[Optional[str], typer.Option("--cluster", metavar="ADDRESS", help="Play on a Dask cluster: 'local' starts one of --workers processes here, else a scheduler address such as tcp://10.0.0.5:8786 (set --workers to its worker count). Needs the cluster extra: pip install -e '.[cluster]' in the arena project.")] = None,
) -> None:
    """Run a tournament; an interrupted run resumes where it stopped when run again.

    Example: arena run tournaments/quickstart-reactor.toml --workers 2
    """
    from arena.errors import ConfigError, StorageError
    from arena.cli.progress import ProgressBar
    from arena.cli.leaderboard import format_table
    from arena.tournament import Tournament
    from arena.tournament.file import load_tournament

    fmt = _output_format(fmt, json_out)
    # The table is for people, so the summary goes with it; csv, json and markdown are data,
    # and stdout then holds the ratings alone (the summary and errors go to stderr).
    to_stderr = fmt != "table"
    try:
        spec = load_tournament(file)
    except ConfigError as exc:  # the file named on the command line: a bad argument
        raise UsageError(str(exc)) from None
    if cluster is not None:
        from arena.execution.dask import check_address

        check_address(cluster)
    if cluster in (None, "local"):  # (a remote cluster's workers have their own bubblewrap, or not)
        from arena.sandbox import check_mode

        check_mode(spec.sandbox.get("mode", "auto"))
    # Warnings from the referee (faults, disqualifications) go to stderr; with several workers
    # multiprocessing-logging carries the workers' records to this process's handler.
    report_to_stderr()
    if workers > 1 and cluster is None:
        import multiprocessing_logging

        multiprocessing_logging.install_mp_handler()
    bar = ProgressBar(enabled=not quiet)
    seen: list[Any] = []  # the latest progress: were any games played or stored before an error?

    def on_progress(progress) -> None:
        seen[:] = [progress]
        bar.update(progress)

    new_db = not _exists(db)
    with _sigint_here_only(), _store(db, create=True) as store, _unless_used(store, new_db):
        try:
            tournament = Tournament(spec, store)
            outcome = tournament.run(workers=workers, on_progress=on_progress, cluster=cluster)
        except KeyboardInterrupt as exc:
            bar.close()
            word, status = ("terminated", 143) if isinstance(exc, Terminated) else ("interrupted", 130)
            typer.echo(f"{word}: the games finished so far are stored in {db}; {_resume_hint()}", err=True)
            _REPORTED.add("interrupt")
            raise typer.Exit(status) from None
        except StorageError as exc:  # the store refused the tournament, or stopped taking games (a full disk)
            bar.close()
            if seen and (seen[0].games_done or seen[0].games_skipped):  # this run's, or an earlier one's
                raise StorageError(f"{exc}. The games finished before are stored: fix this, then run the "
                                   "same command again to play the rest") from None
            raise
        bar.close()
    typer.echo(f"tournament {outcome.tournament}: {outcome.played} games played now, "
               f"{outcome.skipped} already stored, in {db}", err=to_stderr)
    typer.echo(format_table(outcome.leaderboard, fmt).rstrip("\n"))  # echo adds the last newline
    if outcome.errors:  # each was reported as it happened: the run ends with what to do about them
        count = f"{len(outcome.errors)} error" + ("s" if len(outcome.errors) > 1 else "")
        typer.echo(f"error: the run ended with {count} (above); the games played are stored: run the "
                   "same command again to play what failed", err=True)
        raise typer.Exit(1)


@contextlib.contextmanager
def _unless_used(store, new: bool) -> Iterator[None]:
    """A run that fails before it stores anything (say, a bot name not registered) removes the
    database it has just created, so a typo in a file does not leave an empty arena.db behind."""
    try:
        yield
    except BaseException:
        if new:
            with contextlib.suppress(Exception):  # never hide the error being reported
                if not any(store.counts().values()):
                    store.remove()
        raise


@contextlib.contextmanager
def _sigint_here_only() -> Iterator[None]:
    """Ctrl-C reaches the terminal's whole process group, local tournament workers included.
    Inside this block only this process turns SIGINT into KeyboardInterrupt (which `run` reports
    in one line); a forked worker exits quietly instead of printing a traceback (its `with`
    blocks stop its bots) and the coordinator's clean-up stops the rest."""
    coordinator = os.getpid()

    def handle(signum: int, frame: object) -> None:
        if os.getpid() != coordinator:  # a worker forked before it set exit_quietly itself
            exit_quietly(signum, frame)
        raise KeyboardInterrupt

    def terminate(signum: int, frame: object) -> None:
        if os.getpid() != coordinator:  # a forked worker dies of it, as it always did
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated

    import signal

    from arena.core.signals import exit_quietly, sigint

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        with sigint(handle):
            yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Terminated(KeyboardInterrupt):
    """SIGTERM to `arena run` (a `kill`, a service manager): stopped cleanly like a Ctrl-C, with
    the same word on how to resume, and status 143."""


@app.command()
def ratings(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Only games of this game ({GAMES}).")] = None,
    tournament: Annotated[Optional[str], typer.Option("--tournament", "-t", help="Only this tournament.")] = None,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
    db: ReadDb = DEFAULT_DB,
) -> None:
    """TrueSkill ratings recomputed from the stored games: rank, bot, score (mu - 3 sigma), mu, sigma,
    games, wins, mean place and faults.

    Example: arena ratings --tournament quickstart-reactor --format markdown
    """
    from arena import ratings as rating
    from arena.cli.leaderboard import format_table

    fmt = _output_format(fmt, json_out)
    game = _game_filter(game)
    with _store(db) as store:
        _check_tournament(store, tournament)
        if tournament is not None and game is not None and store.tournament(tournament).game != game:
            raise UsageError(f"tournament {tournament!r} is a {store.tournament(tournament).game} tournament, "
                             f"not {game}: drop --game, or name a {game} tournament")
        with store.snapshot():  # results and faults of the same games, while a run may write
            rows = store.results(tournament=tournament, game=game)
            faults = store.fault_counts(tournament=tournament, game=game)
        counted = {row.tournament for row in rows}
        unfinished = [t.id for t in store.tournaments() if t.id in counted and t.status != "finished"]
    if unfinished:  # on stderr: the data formats' stdout stays the table alone
        which = (f"tournament {unfinished[0]} is" if len(unfinished) == 1
                 else f"tournaments {', '.join(unfinished)} are")
        typer.echo(f"note: {which} not finished (interrupted, or playing now): these ratings include only "
                   "the games played so far", err=True)
    games_here = sorted({row.game for row in rows})
    if len(games_here) > 1:  # one ranking of bots that never meet would mislead
        raise UsageError(f"{db} holds games of {' and '.join(games_here)}: rate one game at a time, "
                         f"e.g. --game {games_here[0]}")
    outcomes = rating.outcomes_from_results(rows)
    if not outcomes:
        hint = ("no rated games yet; run a tournament with `arena run FILE`" if not rows else
                f"no rated games: none of the {len({r.game_id for r in rows})} stored games can be rated (a game "
                "counts when some bot played in it, and no bot sat at its table twice); `arena games` shows "
                "their faults")
        if fmt == "table":
            typer.echo(hint)
        else:  # data formats: an empty table on stdout, the hint on stderr
            typer.echo(format_table([], fmt).rstrip("\n"))
            typer.echo(hint, err=True)
        return
    table = rating.rate(outcomes, rating.make_env())
    typer.echo(format_table(rating.leaderboard(table, outcomes, faults), fmt).rstrip("\n"))


def _check_tournament(store, tournament: str | None) -> None:
    """A --tournament filter must name a stored tournament (else an error that says so)."""
    if tournament is not None:
        store.tournament(tournament)


@app.command()
def games(
    tournament: Annotated[Optional[str], typer.Option("--tournament", "-t", help="Only this tournament.")] = None,
    bot: Annotated[Optional[str], typer.Option("--bot", "-b", help="Only games this bot played.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many (newest first).")] = 50,
    db: ReadDb = DEFAULT_DB,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """List stored games, newest first, with each bot's place; `arena replay ID` shows one.

    Example: arena games --bot reactor-strong --limit 10
    """
    from dataclasses import asdict

    from arena.referee.standing import disqualified_seats

    fmt = _output_format(fmt, json_out)
    with _store(db) as store:
        _check_tournament(store, tournament)
        if bot is not None:
            store.bot(bot)  # an unknown name is an error listing the bots
        rows = store.games(tournament=tournament, bot=bot, limit=limit)
    cells, records = [], []
    for r in rows:
        order = sorted(range(len(r.places)), key=r.places.__getitem__)
        notes = (["capped"] if r.capped else []) + ([f"{r.faults} fault(s)"] if r.faults else [])
        out = disqualified_seats(r.forfeited, r.collateral)
        if out:  # forfeited with no fault in this game: say why, or it reads as a plain loss
            notes.append(f"{', '.join(r.bots[s] for s in out)} disqualified")
        cells.append([r.id, r.game, ", ".join(f"{r.places[s]}. {r.bots[s]}" for s in order),
                      "; ".join(notes) or "-"])
        record = asdict(r)
        del record["forfeited"], record["collateral"]
        records.append({**record, "disqualified": out})
    _echo_listing(("id", "game", "places", "notes"), cells, fmt, records,
                  "no games stored yet" if tournament is None and bot is None else "no games match")


@app.command()
def replay(
    game_id: Annotated[str, typer.Argument(help="A stored game's id (see `arena games`).")],
    db: ReadDb = DEFAULT_DB,
    json_out: Annotated[bool, typer.Option("--json", help="Print the full game record as JSON (with --seat: that seat's decisions).")] = False,
    seat: Annotated[Optional[int], typer.Option(min=0, max=5, help="Show what this seat was shown at each of its decisions: observation, events, legal actions, its answer and its time.")] = None,
) -> None:
    """Show a game turn by turn: every hand revealed, every event, each decision.

    The record is replayed through the rules engine, so what is shown is checked.
    Example: arena replay quickstart-reactor/r1-t1-s0-g0

    With --seat N: each decision of that seat as its bot saw it, and its answer.
    """
    from arena.cli.replay_view import replay_lines, seat_lines

    with _store(db) as store:
        record = store.game_record(game_id)
    if seat is not None and seat >= record["config"]["players"]:
        raise UsageError(f"--seat {seat}: game {game_id} has seats 0-{record['config']['players'] - 1}")
    if seat is not None:
        if json_out:
            from arena.games import get_game
            from arena.games.seat_view import seat_decisions

            _echo_json({"game_id": game_id, "seat": seat, "bot": record["seats"][seat],
                        "decisions": [d.to_json() for d in seat_decisions(get_game(record["game"]), record, seat)]})
            return
        for line in seat_lines(record, seat):
            typer.echo(safe(line))
        return
    if json_out:
        _echo_json(record)
        return
    for line in replay_lines(record):
        typer.echo(safe(line))


@app.command()
def bench(
    quick: Annotated[bool, typer.Option(help="Fewer repetitions and a shorter memory run (a smoke check).")] = False,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = "auto",
    memory_games: Annotated[int, typer.Option(min=200, help="Games of the long run of the memory benchmark.")] = 5000,
    part: Annotated[Optional[list[str]], typer.Option(help="Only these parts: engines, pipe, referee, cpu, floor, harness, memory (repeatable).")] = None,
    pin: Annotated[bool, typer.Option(help="Run the round trips on one CPU, as tournament workers do (--no-pin: let the OS place them).")] = True,
    json_out: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Measure engine speed, the pipe baseline, the referee's round trip, CPU per decision and
    its in-process floor, games/s with 1 and 2 workers, and the coordinator's memory; print
    ratios from the same run.

    Example: arena bench --quick
    """
    from arena.bench import PARTS, run_all

    parts = tuple(part or PARTS)
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise UsageError(f"unknown --part {sorted(unknown)[0]!r} (parts: {', '.join(PARTS)})")
    report = run_all(quick=quick, sandbox_mode=_sandbox_mode(sandbox), memory_games=memory_games, parts=parts, pin=pin,
                     echo=None if json_out else (lambda line: typer.echo(f"... {line}", err=True)))
    if json_out:
        _echo_json(report.to_json())
    else:
        for line in report.lines():
            typer.echo(line)


@app.command()
def tournaments(
    db: ReadDb = DEFAULT_DB,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """List the tournaments in the database, newest first: finished, running (being played
    now) or interrupted (run its file again to resume it).

    Example: arena tournaments --db arena.db
    """
    from dataclasses import asdict

    fmt = _output_format(fmt, json_out)
    with _store(db) as store:
        # A run that was stopped (Ctrl-C, a kill) leaves its tournament unfinished: "running"
        # only while a process plays it, else "interrupted" (running its file again resumes it).
        rows = [(t, t.status if t.status != "running" or store.being_played(t.id) else "interrupted")
                for t in store.tournaments()]
        # The spec keeps each bot's version as a row id of the database: show what `bots show` shows.
        records = []
        for t, status in rows:
            spec = dict(t.spec)
            versions = {name: store.bot_version(vid) for name, vid in spec.get("bot_versions", {}).items()}
            spec["bot_versions"] = {name: {"version": v.version, "sha256": v.sha256} for name, v in versions.items()}
            records.append({**asdict(t), "spec": spec, "status": status})
    _echo_listing(("id", "game", "status", "created"),
                  [[t.id, t.game, status, t.created] for t, status in rows], fmt, records,
                  "no tournaments yet; run one with `arena run FILE`")


def app_help() -> str:
    """The top-level help text (what ``arena --help`` prints)."""
    from typer.testing import CliRunner

    return CliRunner().invoke(app, ["--help"]).output


_REPORTED: set[str] = set()  # what a command has told the user already ("interrupt")


_ARGV: list[str] = []  # the arguments main() was given, for a line that says how to run them again


def _resume_hint() -> str:
    """How to play the rest of an interrupted run: the very command, when main() ran it."""
    import shlex

    if _ARGV:
        return f"to play the rest, run: {shlex.join(['arena', *_ARGV])}"
    return "run the same command again to play the rest"


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app and turn every user-facing error into one line."""
    report_to_stderr()
    _ARGV[:] = sys.argv[1:] if argv is None else argv
    try:
        code = app(args=argv, standalone_mode=False)
        if isinstance(code, int) and code:
            # Typer turns Ctrl-C into exit status 130, returned here like any status: say why,
            # unless the command said it already (run tells how to resume).
            if code == 130 and "interrupt" not in _REPORTED:
                typer.echo("interrupted", err=True)
            sys.exit(code)
    except (typer.Exit, getattr(click_errors, "Exit", typer.Exit)) as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # Typer turns Ctrl-C into Exit(130)
            typer.echo("interrupted", err=True)
        sys.exit(exc.exit_code)
    except (typer.Abort, getattr(click_errors, "Abort", typer.Abort)):
        typer.echo("aborted", err=True)
        sys.exit(130)
    except click_errors.ClickException as exc:  # bad arguments: Typer/Click usage errors
        if type(exc).__name__ == "NoArgsIsHelpError":  # `arena` alone: the help is the answer
            ctx = getattr(exc, "ctx", None)
            typer.echo(ctx.get_help() if ctx is not None else app_help())
            sys.exit(0)
        typer.echo(f"error: {' '.join(exc.format_message().split())}", err=True)
        sys.exit(exc.exit_code if exc.exit_code else 2)
    except UsageError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except (ArenaError, GameError) as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except sqlite3.DatabaseError as exc:  # a damaged or unreadable database found while reading it
        typer.echo(f"error: the database could not be read ({exc}); check it with `sqlite3 FILE "
                   "'PRAGMA integrity_check'`, or pass another --db", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:  # `arena games | head`: the reader has all it wanted
        _drop_stdout()
        sys.exit(0)
    except OSError as exc:  # the system refused something, such as writing stdout to a full disk
        _drop_stdout()  # what is still buffered there would fail again at exit, with a traceback
        where = f" ({exc.filename})" if exc.filename else ""
        typer.echo(f"error: {exc.strerror or exc}{where}", err=True)
        sys.exit(1)


def _drop_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    main()
