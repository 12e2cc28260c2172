"""``arena run``: a tournament with a live progress line, its Ctrl-C and SIGTERM, and its ratings."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from arena.cli.options import DEFAULT_DB, FORMAT_HELP, JSON_HELP, Db, db_exists, open_db, output_format
from arena.core.terminal import report_to_stderr
from arena.errors import UsageError


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

    fmt = output_format(fmt, json_out)
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

    new_db = not db_exists(db)
    with _sigint_here_only(), open_db(db, create=True) as store, _unless_used(store, new_db):
        try:
            tournament = Tournament(spec, store)
            outcome = tournament.run(workers=workers, on_progress=on_progress, cluster=cluster)
        except KeyboardInterrupt as exc:
            bar.close()
            word, status = ("terminated", 143) if isinstance(exc, Terminated) else ("interrupted", 130)
            typer.echo(f"{word}: the games finished so far are stored in {db}; {_resume_hint()}", err=True)
            REPORTED.add("interrupt")
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


REPORTED: set[str] = set()  # what a command has told the user already ("interrupt")


ARGV: list[str] = []  # the arguments main() was given, for a line that says how to run them again


def _resume_hint() -> str:
    """How to play the rest of an interrupted run: the very command, when main() ran it."""
    import shlex

    if ARGV:
        return f"to play the rest, run: {shlex.join(['arena', *ARGV])}"
    return "run the same command again to play the rest"
