"""``arena report TOURNAMENT --html OUT``: the server's pages of one tournament as static files.

One folder: ``index.html`` (the tournament page), a page per bot, ``games.html`` and a replay page
per game (the newest ``replays`` of them: a replay page carries every frame of its game), and
``static/`` with the style, the scripts and the vendored chart library.  Links are relative and
nothing is fetched from elsewhere, so the folder can be opened from disk, zipped and mailed, or
put on any web server.  The pages are rendered by the same templates and views as the server's.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.games import REGISTRY
from arena.storage import Store
from arena.web import views
from arena.web.render import STATIC, ReportLinks, environment, file_name, render
from arena.web.replay import frames

DEFAULT_REPLAYS = 100
# The games list of a report holds at most this many (the newest).
LIST_GAMES = 5000


@dataclass(frozen=True, slots=True)
class Written:
    """What a report holds."""

    folder: Path
    pages: int
    replays: int
    games: int


def write_report(store: Store, tournament: str, out: Path, replays: int = DEFAULT_REPLAYS) -> Written:
    """Write the tournament's pages into the folder ``out`` (made if missing; files of an earlier
    report there are replaced).  Reads in one snapshot, so a running tournament's report is of
    one moment."""
    env = environment()
    out.mkdir(parents=True, exist_ok=True)
    with store.snapshot():
        t = store.tournament(tournament)
        listed = store.game_page(tournament=t.id, limit=LIST_GAMES)
        replayed = listed[:max(replays, 0)]
        bots = sorted(t.spec.get("bot_versions", {}))
        links = ReportLinks(t.id, frozenset(g.id for g in replayed), frozenset(bots))
        cache = views.RatingCache()
        view = views.tournament_view(store, t, cache)
        pages = {"index.html": render(env, "tournament.html", links, view=view)}
        page = views.GamesPage(listed, {"tournament": t.id}, None)
        pages["games.html"] = render(env, "games.html", links, page=page, tournaments=[t.id],
                                     game_names=list(REGISTRY))
        for bot in bots:
            pages[file_name("bot", bot)] = render(env, "bot.html", links, view=views.bot_view(store, bot))
        for g in replayed:
            record = store.game_record(g.id)
            pages[file_name("game", g.id)] = render(
                env, "game.html", links, gid=g.id, data=frames(record), faults=store.faults(g.id),
                logs=store.logs(g.id), names=record["seats"], tournament=t.id)
    for name, html in pages.items():
        (out / name).write_text(html, encoding="utf-8")
    static = out / "static"
    if static.exists():
        shutil.rmtree(static)
    shutil.copytree(STATIC, static)
    return Written(out, len(pages), len(replayed), len(listed))
