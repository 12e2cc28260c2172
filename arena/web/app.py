"""``arena serve``: a Starlette app over a database, opened read-only for every request.

Starlette (with Jinja2 templates and uvicorn) because it is a small, well-kept ASGI toolkit: plain
routes and responses, static files, and nothing we do not use (no ORM, no forms, no sessions).
Every route is GET: a POST, PUT or DELETE is answered 405 by the router, and the store is opened
with ``readonly=True`` (SQLite ``mode=ro``), so no page can change the database, also while
``arena run`` writes to it.  Each request opens its own read-only store: SQLite connections are
not shared between the server's threads, and every request sees the games committed so far.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
from dataclasses import replace
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.games import REGISTRY
from arena.errors import ArenaError, StorageError, UnknownBot
from arena.storage import Store, open_store
from arena.web import views
from arena.web.apart import make_apart
from arena.web.render import STATIC, Links, environment, render
from arena.web.replay import frames

REPLAYS_KEPT = 32
SWITCH_SECONDS = 0.001

# Sent with every page: scripts only from this server (no inline script runs, whatever a page
# held), nothing framed, nothing fetched elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class Pages:
    """The routes of one database: each opens the store read-only, reads, renders."""

    def __init__(self, db: str, *, apart: bool = True) -> None:
        """``apart``: a large scope is rated in a process of its own (:mod:`arena.web.apart`);
        False: in a thread of this one (what a test that changes the rating in-process needs)."""
        self.db = db
        self.env = environment()
        self.links = Links()
        self.cache = views.RatingCache(self.store, apart=functools.partial(make_apart, db) if apart else None)
        self.replays: dict[str, dict[str, Any]] = {}  # game id -> frames, oldest viewed first
        self.lock = threading.Lock()
        with self.store():  # fail at start, not on the first request, if the database can not be read
            pass
        for name in self.env.list_templates(extensions=["html"]):  # compiled now, not on a first visit
            self.env.get_template(name)
        # Rate every scope once now, not on the first visit of each page: a long history takes seconds.
        threading.Thread(target=self.warm, name="arena-web-warm", daemon=True).start()

    def warm(self) -> None:
        """Fill the cache with every tournament's and every game's leaderboard and standings (the
        stored ones read now, a small scope made now, a large one made in the background), then
        every bot's page (made here: a bot of 33,000 games took 150 ms, over a page's 200 ms
        beside a busy machine, the first time it was visited)."""
        with contextlib.suppress(Exception), self.store() as store:  # a page computes what this did not
            for t in store.tournaments():
                views.tournament_view(store, t, self.cache)
            bots = store.bots()
            for game in sorted({b.game for b in bots}):
                self.cache.get(store, None, game)
            for bot in bots:
                self.bot_page(store, bot.name)

    @contextmanager
    def store(self) -> Iterator[Store]:
        with open_store(self.db, create=False, readonly=True) as store:
            yield store

    def page(self, template: str, **context: Any) -> HTMLResponse:
        return HTMLResponse(render(self.env, template, self.links, **context), headers=SECURITY_HEADERS)

    def index(self, request: Request) -> Response:
        with self.store() as store:
            tournaments = [(t, store.status(t)) for t in store.tournaments()]
            bots = store.bots()
        games = sorted({b.game for b in bots} | {t.game for t, _ in tournaments})
        return self.page("index.html", tournaments=tournaments, bots=bots, games=games)

    def board(self, request: Request) -> Response:
        game = request.path_params["game"]
        if game not in REGISTRY:
            raise HTTPException(404, f"no game {game!r} (games: {', '.join(REGISTRY)})")
        with self.store() as store:
            board = self.cache.get(store, None, game)
        return self.page("board.html", board=board)

    def tournament(self, request: Request) -> Response:
        with self.store() as store:
            t = _found(store.tournament, request.path_params["tid"])
            view = views.tournament_view(store, t, self.cache)
        return self.page("tournament.html", view=view)

    def progress(self, request: Request) -> Response:
        with self.store() as store:
            t = _found(store.tournament, request.path_params["tid"])
            p = views.progress(store, t, self.cache)
        return JSONResponse(p.to_json(), headers={"Cache-Control": "no-store"})

    def bot(self, request: Request) -> Response:
        name = request.path_params["name"]
        with self.store() as store:
            _found(store.bot, name)
            cached = self.bot_page(store, name)
        view = replace(cached.value, as_of=self.cache.age(cached, ("bot", name)).replace("ratings", "this page"))
        return self.page("bot.html", view=view)

    def bot_page(self, store: Store, name: str) -> views.Cached[views.BotView]:
        """A bot's page as the cache has it: made while the request waits if it never was."""
        return self.cache.memo(store, ("bot", name), *views.recipe(("bot", name)), first_inline=True)

    def games(self, request: Request) -> Response:
        q = request.query_params
        try:
            before = int(q["before"]) if q.get("before") else None
            limit = int(q.get("limit") or views.PAGE_SIZE)
            round_no = int(q["round"]) if q.get("round") else None
        except ValueError:
            raise HTTPException(400, "before, limit and round must be numbers") from None
        if not 1 <= limit <= views.MAX_PAGE:
            raise HTTPException(400, f"limit must be from 1 to {views.MAX_PAGE}")
        with self.store() as store:
            page = views.games_page(store, tournament=q.get("tournament") or None, bot=q.getlist("bot"),
                                    game=q.get("game") or None, before=before, limit=limit, round=round_no,
                                    faults=q.get("faults") not in (None, "", "0"))
            tournaments = [t.id for t in store.tournaments()]
        return self.page("games.html", page=page, tournaments=tournaments, game_names=list(REGISTRY))

    def game(self, request: Request) -> Response:
        gid = request.path_params["gid"]
        with self.store() as store:
            record = _found(store.game_record, gid)
            faults = store.faults(gid)
            logs = store.logs(gid)
        return self.page("game.html", gid=gid, data=self.frames(gid, record), faults=faults, logs=logs,
                         names=record["seats"], tournament=None)

    def frames(self, gid: str, record: dict[str, Any]) -> dict[str, Any]:
        """The replay's frames (a stored game never changes: kept for the last games viewed, as a
        viewer goes back and forth between a few)."""
        with self.lock:
            hit = self.replays.pop(gid, None)
        if hit is None:
            hit = frames(record)
        with self.lock:
            self.replays[gid] = hit
            while len(self.replays) > REPLAYS_KEPT:
                self.replays.pop(next(iter(self.replays)))
        return hit


def _found(read: Any, *args: Any) -> Any:
    """``read(*args)``, with "no such thing" as a 404 page rather than a server error."""
    try:
        return read(*args)
    except (UnknownBot, StorageError) as e:
        raise HTTPException(404, str(e)) from None


def make_app(db: str, *, apart: bool = True) -> Starlette:
    """The app over the database at ``db`` (any location ``open_store`` takes); the database must
    exist (:class:`~arena.errors.NoDatabase` otherwise), and is never written.  ``apart``: see
    :class:`Pages`."""
    pages = Pages(db, apart=apart)

    async def error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "the page could not be made"
        return HTMLResponse(render(pages.env, "error.html", pages.links, status=status, detail=detail),
                            status_code=status, headers=SECURITY_HEADERS)

    routes = [
        Route("/", pages.index),
        Route("/leaderboard/{game}", pages.board),
        Route("/tournaments/{tid}", pages.tournament),
        Route("/api/tournaments/{tid}/progress", pages.progress),
        Route("/bots/{name:path}", pages.bot),
        Route("/games", pages.games),
        Route("/games/{gid:path}", pages.game),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    # A replay page carries every frame of its game (a long Reactor game: half a megabyte of JSON
    # that compresses tenfold).  Level 6, not Starlette's 9: a fifth of the time for 15% more bytes
    # (a Reactor replay of 685 KB: 5 ms to 28 KB, against 20 ms to 24 KB).
    middleware = [Middleware(GZipMiddleware, minimum_size=2048, compresslevel=6)]
    return Starlette(routes=routes, middleware=middleware,
                     exception_handlers={HTTPException: error, ArenaError: error})


def serve(db: str, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the app until interrupted (uvicorn, one process: the pages are reads of one file)."""
    import uvicorn

    # While the background thread rates a large scope (pure Python), a page's thread waits for the
    # GIL after each SQLite call: a hand-over every 1 ms instead of 5 keeps those waits short.
    sys.setswitchinterval(SWITCH_SECONDS)
    uvicorn.run(make_app(db), host=host, port=port, log_level="warning")
