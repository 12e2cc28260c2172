"""The root of the ``arena`` command: the Typer app with its commands, and :func:`main`.

:func:`main` turns every error a user can cause into one line on stderr and an exit status,
never a traceback (the contract in README.md, "The command line"): 2 for bad arguments (an
unknown command, option or value, or a file named on the command line that is missing or
unusable: a bot, a tournament file, a database, an output file), 1 for everything else (a bot
that fails its check, a name not found in the database, a failed match), 130 for Ctrl-C
(``arena run`` says how to resume, and exits 143 for SIGTERM).  Commands raise; only here is an
error turned into a message and a status.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from typing import Annotated

import typer

try:  # Typer 0.2x vendors Click; older releases use the click package
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the installed Typer
    from click import exceptions as click_errors

from typer.testing import CliRunner

from arena import __version__
from arena.cli import bench, bots, listings, play, replay, results, run, schema, web
from arena.core.terminal import report_to_stderr
from arena.errors import ArenaError, UsageError
from arena.games import GameError

app = typer.Typer(
    name="arena",
    help="Tournament and bot-competition harness for Reactor and Powder Keg.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print arena's version and exit.")] = False,
) -> None:
    pass


# The commands, in the order `arena --help` lists them: a new command is a function in the module
# of its kind (or a new module) and a line here.
for command in (play.selfplay, play.play, play.check, schema.schema, run.run, results.standings, listings.ratings,
                results.h2h, results.crosstable, listings.games, replay.replay, bench.bench, listings.tournaments,
                web.serve, web.report):
    app.command()(command)

bots_app = typer.Typer(help="Register bots and look at them.\n\nExample: arena bots list --game reactor",
                       no_args_is_help=True)
app.add_typer(bots_app, name="bots")
for name, command in (("add", bots.add), ("list", bots.list_bots), ("show", bots.show), ("remove", bots.remove),
                      ("rename", bots.rename)):
    bots_app.command(name)(command)


def app_help() -> str:
    """The top-level help text (what ``arena --help`` prints)."""
    return CliRunner().invoke(app, ["--help"]).output


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app and turn every user-facing error into one line."""
    report_to_stderr()
    try:
        # The arguments go down to the commands as the context's obj, for a line that says how
        # to run them again (an interrupted `arena run`).
        code = app(args=argv, standalone_mode=False, obj=sys.argv[1:] if argv is None else list(argv))
        if isinstance(code, int) and code:
            if code == 130:  # Typer turns Ctrl-C into exit status 130, returned here like any status: say why
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
