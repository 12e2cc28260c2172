"""``arena run``: a tournament with a live progress line, ending with its standings and ratings.

A run stopped by Ctrl-C or SIGTERM keeps every finished game, stops the bots and removes their
folders (:func:`arena.core.signals.stopped_by_signals` and the executors see to that); what is
left here is the terminal's part: one line saying what was kept and the very command that plays
the rest, and status 130 (143 for SIGTERM).
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from arena.cli.leaderboard import format_board
from arena.cli.options import (
    DEFAULT_DB,
    FORMAT_HELP,
    Db,
    Json,
    Quiet,
    Workers,
    bad_argument,
    db_exists,
    open_db,
    output_format,
    tournament_file,
)
from arena.cli.output import echo_text, note
from arena.cli.progress import ProgressBar, standings_lines
from arena.cli.results import format_standings
from arena.cli.stopview import stop_lines
from arena.core.signals import Terminated, stopped_by_signals
from arena.core.terminal import report_to_stderr
from arena.errors import ArenaError, ConfigError, StorageError

if TYPE_CHECKING:
    from arena.results import Board, Standings
    from arena.tournament import Progress, Tournament, TournamentOutcome


def run(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Tournament file (TOML), e.g. tournaments/quickstart-reactor.toml.")],
    db: Db = DEFAULT_DB,
    workers: Workers = 1,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP + " With csv, json or markdown only the ratings go to stdout.")] = None,
    json_out: Json = False,
    quiet: Quiet = False,
    stop: Annotated[Optional[str], typer.Option("--stop", metavar="RULE", help="Stop early: 'settled' plays whole blocks until every neighbouring pair of the order is settled (or --max-games), 'none' plays the schedule; over the file's [stop].")] = None,
    max_games: Annotated[Optional[int], typer.Option("--max-games", min=1, help="With --stop settled: the most games (at the end of a block); raise it to extend a stopped tournament.")] = None,
    standings_every: Annotated[Optional[int], typer.Option("--standings-every", min=0, metavar="N", help="Print the top of the table with its certainty every N games played; 0: never. By default on a terminal, every tenth of the run (at least 10 games).")] = None,
    cluster: Annotated[Optional[str], typer.Option("--cluster", metavar="ADDRESS", help="Play on a Dask cluster: 'local' starts one of --workers processes here, else a scheduler address such as tcp://10.0.0.5:8786 (set --workers to its worker count). Needs the cluster extra: pip install -e '.[cluster]' in the arena project.")] = None,
) -> None:
    """Run a tournament; an interrupted run resumes where it stopped when run again.

    Example: arena run tournaments/quickstart-reactor.toml --workers 2 --stop settled --max-games 600
    """
    from arena import results
    from arena.execution import check_executor
    from arena.tournament import Tournament

    fmt = output_format(fmt, json_out)
    spec = tournament_file(file)
    with bad_argument(ConfigError):
        spec = spec.with_stop(stop, max_games)
    check_executor(cluster, spec.sandbox.get("mode", "auto"))
    new = not db_exists(db)
    with _warnings_to_stderr(forked_workers=workers > 1 and cluster is None), ProgressBar(enabled=not quiet) as bar, \
            _stop_reported(bar, db, ctx.obj), stopped_by_signals(), \
            open_db(db, create=True) as store, store.removed_if_unused(new):
        tournament = Tournament(spec, store)
        outcome = tournament.run(workers=workers, on_progress=_live_view(bar, tournament, standings_every),
                                 cluster=cluster)
        board = results.board(results.load_pool(store, tournament=outcome.tournament))
        standing = results.standings(store, outcome.tournament) if fmt == "table" else None
    _show(outcome, db, fmt, board, standing)


def _live_view(bar: ProgressBar, tournament: Tournament, every: int | None) -> Callable[[Progress], None]:
    """The progress line, and the standings every ``every`` games played (by default on a
    terminal only: a tenth of the run, at least 10 games)."""
    printed = 0

    def on_progress(p: Progress) -> None:
        nonlocal printed
        bar.update(p)
        n = every if every is not None else (_tenth(p) if bar.tty else 0)
        if n and p.games_done - printed >= n:
            printed = p.games_done
            bar.print_above(standings_lines(tournament.ranking(), p.games_done + p.games_skipped))

    return on_progress


def _tenth(p: Progress) -> int:
    total = p.games_max if p.games_max is not None else p.matches_total
    return max(total // 10, 10)


def _show(outcome: TournamentOutcome, db: str, fmt: str, board: Board, standing: Standings | None) -> None:
    """What the run played, why it stopped (under a stop rule), its standings and the ratings.
    The table is for people, so the summary and the standings go with it; csv, json and markdown
    are data, and stdout then holds the ratings alone (the summary and errors go to stderr)."""
    typer.echo(f"tournament {outcome.tournament}: {outcome.played} games played now, "
               f"{outcome.skipped} already stored, in {db}", err=fmt != "table")
    if outcome.stop is not None:
        for line in stop_lines(outcome.stop):
            typer.echo(line, err=fmt != "table")
    if standing is not None:
        echo_text(format_standings(standing, fmt) + "\nratings:")
    echo_text(format_board(board, fmt))
    if outcome.errors:  # each was reported as it happened: the run ends with what to do about them
        raise ArenaError(f"the run ended with {len(outcome.errors)} error{'s' if len(outcome.errors) > 1 else ''} "
                         "(above); the games played are stored: run the same command again to play what failed")


@contextmanager
def _warnings_to_stderr(forked_workers: bool) -> Iterator[None]:
    """The referee's warnings (faults, disqualifications) on stderr, one line each; with local
    workers, multiprocessing-logging carries their records to this process's handler (wrapped
    here, before the pool forks them).  The wrapping is undone when the run ends: left in place,
    a second run in the same process (a test, a program that calls the CLI) wrapped the wrappers,
    and a handler added to the root logger later was fed each record twice."""
    report_to_stderr()
    if not forked_workers:
        yield
        return
    import multiprocessing_logging

    root = logging.getLogger()
    before = list(root.handlers)
    multiprocessing_logging.install_mp_handler(root)
    try:
        yield
    finally:
        wrappers = [h for h in root.handlers if h not in before]
        multiprocessing_logging.uninstall_mp_handler(root)
        for wrapper in wrappers:
            wrapper.close()  # stops its receiving thread


@contextmanager
def _stop_reported(bar: ProgressBar, db: str, argv: list[str] | None) -> Iterator[None]:
    """A run stopped by Ctrl-C or SIGTERM says what it kept and how to play the rest, in one line
    after the progress line, with status 130 or 143; a store that refused the run, or stopped
    taking games, says so, and that the games before are kept if there were any."""
    try:
        yield
    except KeyboardInterrupt as exc:
        bar.close()
        word, status = ("terminated", 143) if isinstance(exc, Terminated) else ("interrupted", 130)
        note(f"{word}: the games finished so far are stored in {db}; {_resume_hint(argv)}")
        # SystemExit, not typer.Exit: Typer hands an Exit's status back to main() as it does
        # the 130 of a Ctrl-C it caught, which main() would report a second time.
        raise SystemExit(status) from None
    except StorageError as exc:  # the store refused the tournament, or stopped taking games (a full disk)
        bar.close()
        seen = bar.progress
        if seen is not None and (seen.games_done or seen.games_skipped):  # this run's, or an earlier one's
            raise StorageError(f"{exc}. The games finished before are stored: fix this, then run the "
                               "same command again to play the rest") from None
        raise


def _resume_hint(argv: list[str] | None) -> str:
    """How to play the rest of an interrupted run: the very command, when main() ran it (with
    the arguments it was given, handed down as the context's ``obj``)."""
    if argv:
        return f"to play the rest, run: {shlex.join(['arena', *argv])}"
    return "run the same command again to play the rest"
