"""``arena serve`` and ``arena report``: the results in a browser (the ``web`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.options import DEFAULT_DB, ReadDb, open_db
from arena.cli.output import note
from arena.errors import UsageError

INSTALL = "pip install -e '.[web]'"


def _web() -> None:
    """The web extra must be installed: say how, in one line, rather than a traceback."""
    try:
        import jinja2  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        raise UsageError(f"the web pages need the web extra ({e.name} is missing): {INSTALL}") from None


def serve(
    db: ReadDb = DEFAULT_DB,
    host: Annotated[str, typer.Option(
        help="Address to listen on; 127.0.0.1 (this machine only) unless told otherwise.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
) -> None:
    """Serve the database's results as web pages: leaderboards, tournaments (live while
    `arena run` plays), bots, games and a replay viewer.  Read-only: no page changes the
    database.

    Example: arena serve --db arena.db   (then open http://127.0.0.1:8000)
    """
    _web()
    from arena.web.app import serve as run_server

    open_db(db).close()  # a missing or unusable database is a bad argument, before the server starts
    note(f"serving {db} at http://{host}:{port} (read-only; Ctrl-C stops)")
    run_server(db, host=host, port=port)


def report(
    tournament: Annotated[str, typer.Argument(help="The tournament's id (see `arena tournaments`).")],
    html: Annotated[Path, typer.Option("--html", help="Folder to write the pages into (made if missing).")],
    db: ReadDb = DEFAULT_DB,
    replays: Annotated[int, typer.Option(
        min=0, help="Replay pages for the newest this many games (a long Reactor game takes about 400 KB).")] = 100,
) -> None:
    """Write a tournament's pages (as `arena serve` shows them) as static files: open
    OUT/index.html from disk, or put the folder on any web server; no network needed.

    Example: arena report quickstart-reactor --html report/
    """
    _web()
    from arena.web.report import write_report

    if html.exists() and not html.is_dir():
        raise UsageError(f"--html {html}: not a folder")
    with open_db(db) as store:
        store.tournament(tournament)  # an unknown id: one line naming the command that lists them
        written = write_report(store, tournament, html, replays=replays)
    note(f"wrote {written.pages} pages ({written.replays} replays of {written.games} games) to {html}; "
         f"open {html / 'index.html'}")
