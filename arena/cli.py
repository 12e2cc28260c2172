"""The ``arena`` command line: a thin layer over the library.

Every error a user can cause ends as one line on stderr and a non-zero exit status (2 for bad
arguments, 1 for everything else), never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

try:  # Typer 0.2x vendors Click; older releases use the click package
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the installed Typer
    from click import exceptions as click_errors

from arena.errors import ArenaError, UsageError
from arena.games import REGISTRY, GameError

app = typer.Typer(
    name="arena",
    help="Tournament and bot-competition harness for Reactor and Powder Keg.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

GAMES = ", ".join(REGISTRY)


@app.command()
def selfplay(
    game: Annotated[str, typer.Argument(help=f"Game to play ({GAMES}).")],
    players: Annotated[int, typer.Option("--players", "-n", help="Seats at the table.")] = 4,
    games: Annotated[int, typer.Option("--games", "-k", min=1, help="Games to play (Powder Keg: matches, each a series of games to --points).")] = 1,
    seed: Annotated[str, typer.Option(help="Root seed; the same arguments give the same file, byte for byte.")] = "0",
    variant: Annotated[Optional[list[str]], typer.Option("--variant", "-v", help="A variant switch (repeatable).")] = None,
    bot: Annotated[Optional[list[str]], typer.Option(help="Built-in bot: random, heuristic or strong (or the reference policies tuned for Reactor, counting for Powder Keg; repeat to fill seats in turn).")] = None,
    points: Annotated[Optional[int], typer.Option(min=1, help="Points that end a match (Powder Keg default 3).")] = None,
    out: Annotated[Path, typer.Option(help="Where to write the records (JSON lines, one game per line).")] = Path("selfplay.jsonl"),
) -> None:
    """Play games in-process between built-in bots and write one record per game.

    Example: arena selfplay powder-keg --players 4 --games 10 --seed 7 --variant short-hands --out keg.jsonl
    """
    from arena.selfplay import SelfPlaySpec, iter_records
    from arena.jsonio import write_jsonl

    spec = SelfPlaySpec(
        game=game, players=players, matches=games, seed=seed,
        variants=tuple(variant or ()), bots=tuple(bot or ("random",)), points=points,
    )
    _check_selfplay(spec)
    count, wins = write_jsonl(out, iter_records(spec))
    typer.echo(f"wrote {count} game records to {out}; wins by seat: {wins}")


def _check_selfplay(spec) -> None:
    from arena.games import GameConfig, get_game
    from arena.policies import policy_names

    try:
        game = get_game(spec.game)
        game.check_config(GameConfig(players=spec.players, variants=spec.variants, points=spec.points))
    except GameError as exc:
        raise UsageError(str(exc)) from None
    for name in spec.bots:
        if name not in policy_names(game.name):
            raise UsageError(f"no built-in bot {name!r} (bots: {', '.join(policy_names(game.name))})")


SANDBOX_HELP = "Sandbox: auto (bubblewrap if installed, else a warning), strict (refuse without it), none."


def _referee_config(sandbox: str, decision_ms: int, game_ms: int, startup_ms: int):
    from arena.referee import RefereeConfig
    from protocol.messages import Limits

    if sandbox not in ("auto", "strict", "none"):
        raise UsageError(f"--sandbox must be auto, strict or none, not {sandbox!r}")
    return RefereeConfig(limits=Limits(decision_ms=decision_ms, game_ms=game_ms, startup_ms=startup_ms),
                         sandbox_mode=sandbox)


def _game_config(game_name: str, players: int, variants: list[str] | None, points: int | None):
    from arena.games import GameConfig, get_game

    try:
        game = get_game(game_name)
        config = GameConfig(players=players, variants=tuple(variants or ()), points=points)
        game.check_config(config)
    except GameError as exc:
        raise UsageError(str(exc)) from None
    return game, config


def _bot_specs(targets: list[str]):
    """Resolve bot arguments now, so a wrong path is a usage error (status 2)."""
    from arena.errors import UnknownBot
    from arena.referee import bot_spec

    try:
        return [bot_spec(t) for t in targets]
    except UnknownBot as exc:
        raise UsageError(str(exc)) from None


@app.command()
def play(
    game: Annotated[str, typer.Argument(help=f"Game to play ({GAMES}).")],
    bots: Annotated[list[str], typer.Argument(help="Two or more bots: a path to a script (.py, .js) or a command line.")],
    games: Annotated[int, typer.Option("--games", "-k", min=1, help="Matches to play (a Powder Keg match is a series of games to --points).")] = 1,
    seed: Annotated[str, typer.Option(help="Root seed of the deals.")] = "0",
    variant: Annotated[Optional[list[str]], typer.Option("--variant", "-v", help="A variant switch (repeatable).")] = None,
    points: Annotated[Optional[int], typer.Option(min=1, help="Points that end a match (Powder Keg default 3).")] = None,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = "auto",
    decision_ms: Annotated[int, typer.Option(min=1, help="Time limit per decision.")] = 2000,
    game_ms: Annotated[int, typer.Option(min=1, help="Time budget per bot per game.")] = 60000,
    startup_ms: Annotated[int, typer.Option(min=1, help="Time limit for a bot to start and say hello.")] = 10000,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Play a match between bot programs and print places, scores and each bot's faults.

    Example: arena play reactor bots/random_bot.py bots/reactor_strong.py bots/random_bot.py --games 3
    """
    from arena.play import play_matches

    if len(bots) < 2:
        raise UsageError("give at least two bots")
    _bot_specs(bots)
    game_obj, config = _game_config(game, len(bots), variant, points)
    summary = play_matches(game_obj, config, bots, matches=games, seed=seed,
                           referee=_referee_config(sandbox, decision_ms, game_ms, startup_ms))
    if json_out:
        typer.echo(summary.to_json_text())
    else:
        for line in summary.lines():
            typer.echo(line)


@app.command()
def check(
    bot: Annotated[str, typer.Argument(help="The bot: a path to a script (.py, .js) or a command line.")],
    game: Annotated[str, typer.Option("--game", "-g", help=f"Game the bot plays ({GAMES}).")],
    players: Annotated[Optional[int], typer.Option("--players", "-n", help="Seats for the self-play game (default: the game's minimum).")] = None,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = "auto",
    decision_ms: Annotated[int, typer.Option(min=1, help="Time limit per decision.")] = 2000,
    game_ms: Annotated[int, typer.Option(min=1, help="Time budget per bot per game.")] = 60000,
    startup_ms: Annotated[int, typer.Option(min=1, help="Time limit for a bot to start and say hello.")] = 10000,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Validate a bot: handshake, a full self-play game, timing; exit status 1 if it fails.

    Example: arena check bots/reactor_strong.py --game reactor
    """
    from arena.check import check_bot

    game_obj, _ = _game_config(game, players or 2, None, None)
    report = check_bot(_bot_specs([bot])[0], game_obj.name, players=players,
                       config=_referee_config(sandbox, decision_ms, game_ms, startup_ms))
    if json_out:
        from arena.jsonio import dumps

        typer.echo(dumps(report.to_json()).decode())
    else:
        for line in report.lines():
            typer.echo(line)
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def schema() -> None:
    """Print the protocol's JSON Schema (every message between referee and bot)."""
    import json

    from protocol.messages import schema as protocol_schema

    typer.echo(json.dumps(protocol_schema(), indent=2))


DB_HELP = "SQLite database file (created if missing)."
FORMAT_HELP = "Output format: table, csv, json or markdown."


def _store(db: Path):
    from arena.storage import Store

    return Store(str(db))


bots_app = typer.Typer(help="Register bots and look at them.", no_args_is_help=True)
app.add_typer(bots_app, name="bots")


@bots_app.command("add")
def bots_add(
    path: Annotated[Path, typer.Argument(help="The bot's file (.py, .js, or an executable).")],
    name: Annotated[str, typer.Option(help="Name to register it under; a changed file becomes a new version.")],
    game: Annotated[str, typer.Option("--game", "-g", help=f"Game the bot plays ({GAMES}).")],
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("arena.db"),
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = "auto",
) -> None:
    """Validate a bot (as `arena check` does) and store it with its content and hash.

    Example: arena bots add bots/reactor_strong.py --name strong --game reactor
    """
    from arena.check import check_bot
    from arena.referee import bot_spec
    from arena.registry import register

    game_obj, _ = _game_config(game, 2, None, None)
    spec = bot_spec(str(path), name)
    report = check_bot(spec, game_obj.name, config=_referee_config(sandbox, 2000, 60000, 10000))
    for line in report.lines():
        typer.echo(line)
    if not report.ok:
        typer.echo(f"error: {name} was not registered: fix the problems above and add it again", err=True)
        raise typer.Exit(1)
    with _store(db) as store:
        version = register(store, path, name=name, game=game_obj.name, check_report=report.to_json())
    typer.echo(f"registered {version.name} version {version.version} (sha256 {version.sha256[:12]}) in {db}")


@bots_app.command("list")
def bots_list(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help="Only bots of this game.")] = None,
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("arena.db"),
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List registered bots with their current version and games played."""
    from dataclasses import asdict

    from arena.jsonio import dumps

    with _store(db) as store:
        rows = store.bots(game)
    if json_out:
        typer.echo(dumps([asdict(r) for r in rows]).decode())
        return
    if not rows:
        typer.echo(f"no bots in {db}; add one with `arena bots add PATH --name NAME --game GAME`")
        return
    typer.echo(f"{'bot':<24}{'game':<12}{'version':>8}{'versions':>9}{'games':>8}")
    for r in rows:
        typer.echo(f"{r.name:<24}{r.game:<12}{r.version:>8}{r.versions:>9}{r.games:>8}")


@bots_app.command("show")
def bots_show(
    name: Annotated[str, typer.Argument(help="A registered bot.")],
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("arena.db"),
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show a bot's current version, its command, hash and check report."""
    from dataclasses import asdict

    from arena.jsonio import dumps

    with _store(db) as store:
        version = store.bot(name)
    if json_out:
        typer.echo(dumps(asdict(version)).decode())
        return
    report = version.check_report
    typer.echo(f"{version.name}: {version.game} bot, version {version.version}, added {version.added}")
    typer.echo(f"  file: {version.filename} (sha256 {version.sha256})")
    typer.echo(f"  command: {' '.join(version.command)}")
    if report.get("source"):
        typer.echo(f"  registered from: {report['source']}")
    if "ok" in report:
        typer.echo(f"  check: {'OK' if report['ok'] else 'FAILED'}, median {report.get('median_ms')} ms per decision")


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Tournament file (TOML), e.g. tournaments/quickstart-reactor.toml.")],
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("arena.db"),
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Matches played in parallel.")] = 1,
    fmt: Annotated[str, typer.Option("--format", help=FORMAT_HELP)] = "table",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    cluster: Annotated[Optional[str], typer.Option("--cluster", metavar="ADDRESS", help="Play on a Dask cluster: 'local' starts one of --workers processes here, else a scheduler address such as tcp://10.0.0.5:8786 (set --workers to its worker count). Needs pip install 'arena[cluster]'.")] = None,
) -> None:
    """Run a tournament; an interrupted run resumes where it stopped when run again.

    Example: arena run tournaments/quickstart-reactor.toml --workers 2
    """
    from arena.progress import ProgressBar
    from arena.ratings import format_table
    from arena.tournament import Tournament
    from arena.tournament_file import load_tournament

    if not file.is_file():
        raise UsageError(f"no tournament file at {file}")
    spec = load_tournament(file)
    import logging

    # Warnings from the referee (faults, disqualifications) go to stderr; with several workers
    # multiprocessing-logging carries the workers' records to this process's handler.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if workers > 1 and cluster is None:
        import multiprocessing_logging

        multiprocessing_logging.install_mp_handler()
    with _store(db) as store:
        tournament = Tournament(spec, store, db)
        bar = ProgressBar(enabled=not quiet)
        outcome = tournament.run(workers=workers, on_progress=bar.update, cluster=cluster)
        bar.close()
    typer.echo(f"tournament {outcome.tournament}: {outcome.played} games played now, "
               f"{outcome.skipped} already stored, in {db}")
    for error in outcome.errors:
        typer.echo(f"error: {error}", err=True)
    typer.echo(format_table(outcome.leaderboard, fmt))
    if outcome.errors:
        raise typer.Exit(1)


@app.command()
def ratings(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help="Only games of this game.")] = None,
    tournament: Annotated[Optional[str], typer.Option("--tournament", "-t", help="Only this tournament.")] = None,
    fmt: Annotated[str, typer.Option("--format", help=FORMAT_HELP)] = "table",
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("arena.db"),
) -> None:
    """TrueSkill ratings recomputed from the stored games: rank, bot, mu - 3 sigma, mu, sigma, games, wins.

    Example: arena ratings --tournament quickstart-reactor --format markdown
    """
    from arena import ratings as rating

    if fmt not in ("table", "csv", "json", "markdown"):
        raise UsageError(f"--format must be table, csv, json or markdown, not {fmt!r}")
    with _store(db) as store:
        if tournament is not None:
            store.tournament(tournament)  # a clear error for an unknown name
        rows = store.results(tournament=tournament, game=game)
        faults = store.fault_counts(tournament=tournament, game=game)
    outcomes = rating.outcomes_from_results(rows)
    if not outcomes:
        typer.echo("no rated games yet; run a tournament with `arena run FILE`")
        return
    table = rating.rate(outcomes, rating.make_env())
    typer.echo(rating.format_table(rating.leaderboard(table, outcomes, faults), fmt))


@app.command()
def games(
    tournament: Annotated[Optional[str], typer.Option("--tournament", "-t", help="Only this tournament.")] = None,
    bot: Annotated[Optional[str], typer.Option("--bot", "-b", help="Only games this bot played.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many (newest first).")] = 50,
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("arena.db"),
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List stored games, newest first; `arena replay ID` shows one.

    Example: arena games --bot strong --limit 10
    """
    from dataclasses import asdict

    from arena.jsonio import dumps

    with _store(db) as store:
        rows = store.games(tournament=tournament, bot=bot, limit=limit)
    if json_out:
        typer.echo(dumps([asdict(r) for r in rows]).decode())
        return
    if not rows:
        typer.echo("no games stored yet")
        return
    for r in rows:
        order = sorted(range(len(r.places)), key=r.places.__getitem__)
        ranking = ", ".join(f"{r.places[s]}. {r.bots[s]}" for s in order)
        extra = (" [capped]" if r.capped else "") + (f" [{r.faults} fault(s)]" if r.faults else "")
        typer.echo(f"{r.id}  {r.game}  {ranking}{extra}")


@app.command()
def replay(
    game_id: Annotated[str, typer.Argument(help="A stored game's id (see `arena games`).")],
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("arena.db"),
    json_out: Annotated[bool, typer.Option("--json", help="Print the full game record as JSON.")] = False,
) -> None:
    """Show a game turn by turn: every hand revealed, every event, each decision.

    The record is replayed through the rules engine, so what is shown is checked.
    Example: arena replay quickstart-reactor/rr1-t1-s0-g0
    """
    from arena.jsonio import dumps
    from arena.replay_view import replay_lines

    with _store(db) as store:
        record = store.game_record(game_id)
    if json_out:
        typer.echo(dumps(record).decode())
        return
    for line in replay_lines(record):
        typer.echo(line)


@app.command()
def bench(
    quick: Annotated[bool, typer.Option(help="Fewer repetitions and a shorter memory run (a smoke check).")] = False,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = "auto",
    memory_games: Annotated[int, typer.Option(min=200, help="Games of the long run of the memory benchmark.")] = 5000,
    part: Annotated[Optional[list[str]], typer.Option(help="Only these parts: engines, pipe, referee, cpu, harness, memory (repeatable).")] = None,
    pin: Annotated[bool, typer.Option(help="Run the round trips on one CPU, as tournament workers do (--no-pin: let the OS place them).")] = True,
    json_out: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Measure engine speed, the pipe baseline, the referee's round trip, CPU per decision,
    games/s with 1 and 2 workers, and the coordinator's memory; print ratios from the same run.

    Example: arena bench --quick
    """
    from arena.bench import run_all
    from arena.jsonio import dumps

    parts = tuple(part or ("engines", "pipe", "referee", "cpu", "harness", "memory"))
    unknown = set(parts) - {"engines", "pipe", "referee", "cpu", "harness", "memory"}
    if unknown:
        raise UsageError(f"unknown --part {sorted(unknown)[0]!r} (parts: engines, pipe, referee, cpu, harness, memory)")
    if sandbox not in ("auto", "strict", "none"):
        raise UsageError(f"--sandbox must be auto, strict or none, not {sandbox!r}")
    report = run_all(quick=quick, sandbox_mode=sandbox, memory_games=memory_games, parts=parts, pin=pin,
                     echo=None if json_out else (lambda line: typer.echo(f"... {line}", err=True)))
    if json_out:
        typer.echo(dumps(report.to_json()).decode())
    else:
        for line in report.lines():
            typer.echo(line)


@app.command()
def tournaments(
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("arena.db"),
) -> None:
    """List the tournaments in the database."""
    with _store(db) as store:
        rows = store.tournaments()
    if not rows:
        typer.echo("no tournaments yet; run one with `arena run FILE`")
    for t in rows:
        typer.echo(f"{t.id}  {t.game}  {t.status}  started {t.created}")


def app_help() -> str:
    """The top-level help text (what ``arena --help`` prints)."""
    from typer.testing import CliRunner

    return CliRunner().invoke(app, ["--help"]).output


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app and turn every user-facing error into one line."""
    try:
        code = app(args=argv, standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except (typer.Exit, getattr(click_errors, "Exit", typer.Exit)) as exc:
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
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
