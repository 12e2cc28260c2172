"""Commands that play games: ``selfplay`` (built-in bots, in-process), ``play`` (bot programs)
and ``check`` (a bot against copies of itself, with a report its author can act on)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.cli.jsonio import write_records
from arena.cli.options import (
    DEFAULT_DB,
    LIMITS,
    MAX_COUNT,
    BotGame,
    DecisionMs,
    GameArg,
    GameMs,
    Points,
    ReadDb,
    Sandbox,
    StartupMs,
    Variants,
    bad_argument,
    bot_specs,
    check_writable,
    registered_or_given,
    game_config,
    referee_config,
)
from arena.cli.output import echo_report
from arena.errors import ConfigError, UsageError


def selfplay(
    game: GameArg,
    players: Annotated[int, typer.Option("--players", "-n", help="Seats at the table.")] = 4,
    matches: Annotated[int, typer.Option("--matches", "--games", "-k", min=1, max=MAX_COUNT, help="Matches to play: each a series of games to --points (a Reactor match is one game unless --points says more). --games is the old spelling.")] = 1,
    seed: Annotated[str, typer.Option(help="Root seed; the same arguments give the same file, byte for byte.")] = "0",
    variant: Variants = None,
    bot: Annotated[Optional[list[str]], typer.Option(help="Built-in bot: random, heuristic or strong (or the reference policies tuned for Reactor, counting for Powder Keg; repeat to fill seats in turn).")] = None,
    points: Points = None,
    out: Annotated[Path, typer.Option(help="Where to write the records (JSON lines, one game per line; - for stdout).")] = Path("selfplay.jsonl"),
) -> None:
    """Play games in-process between built-in bots and write one record per game.

    Example: arena selfplay powder-keg --players 4 --matches 10 --seed 7 --variant short-hands --out keg.jsonl
    """
    from arena.games.selfplay import SelfPlaySpec, check_spec, iter_records

    spec = SelfPlaySpec(game=game, players=players, matches=matches, seed=seed, variants=tuple(variant or ()),
                        bots=tuple(bot or ("random",)), points=points)
    with bad_argument(ConfigError):
        check_spec(spec)
    to_stdout = str(out) == "-"  # the records alone on stdout, for a pipe; the summary on stderr
    if not to_stdout:
        check_writable(out, "--out")
    count, wins = write_records(out, iter_records(spec))
    typer.echo(f"wrote {count} game record{'' if count == 1 else 's'} to {'stdout' if to_stdout else out}; "
               f"wins by seat: {wins}", err=to_stdout)


def play(
    game: GameArg,
    bots: Annotated[list[str], typer.Argument(help="Two or more bots: a path to a script (.py, .js) or a bot folder, a command line, or a bot registered in --db (NAME, NAME@N, NAME@HASH).")],
    matches: Annotated[int, typer.Option("--matches", "--games", "-k", min=1, max=MAX_COUNT, help="Matches to play (a Powder Keg match is a series of games to --points). --games is the old spelling.")] = 1,
    seed: Annotated[str, typer.Option(help="Root seed of the deals.")] = "0",
    variant: Variants = None,
    points: Points = None,
    sandbox: Sandbox = "auto",
    decision_ms: DecisionMs = LIMITS.decision_ms,
    game_ms: GameMs = LIMITS.game_ms,
    startup_ms: StartupMs = LIMITS.startup_ms,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    db: ReadDb = DEFAULT_DB,
) -> None:
    """Play a match between bot programs and print places, scores and each bot's faults.

    Example: arena play reactor bots/random_bot.py bots/reactor_strong.py bots/random_bot.py --matches 3

    Old against new: arena play reactor dumper@1 dumper@2 --matches 20
    """
    from arena.referee.play import play_matches

    if len(bots) < 2:
        raise UsageError("give at least two bots")
    specs = registered_or_given(bots, db)  # each names a bot, before any starts
    game_obj, config = game_config(game, len(bots), variant, points)
    summary = play_matches(game_obj, config, bots, matches=matches, seed=seed, specs=specs,
                           referee=referee_config(sandbox, decision_ms, game_ms, startup_ms))
    echo_report(summary, json_out)


def check(
    bot: Annotated[str, typer.Argument(help="The bot: a path to a script (.py, .js) or a command line.")],
    game: BotGame,
    players: Annotated[Optional[int], typer.Option("--players", "-n", help="Seats for the self-play game (default: the game's minimum).")] = None,
    matches: Annotated[int, typer.Option("--matches", "-k", min=1, max=1000, help="Self-play matches to play (Powder Keg: each again with every variant on).")] = 3,
    seed: Annotated[str, typer.Option(help="Root seed of the deals; the same --seed and --matches play the same deals again.")] = "check",
    sandbox: Sandbox = "auto",
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

    game_obj, _ = game_config(game, 2 if players is None else players, None, None)  # --players 0 is no default
    report = check_bot(bot_specs([bot])[0], game_obj.name, players=players, seed=seed, matches=matches,
                       config=referee_config(sandbox, decision_ms, game_ms, startup_ms))
    echo_report(report, json_out)
    if not report.ok:
        raise typer.Exit(1)
