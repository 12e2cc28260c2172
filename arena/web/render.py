"""The pages as HTML: one Jinja2 environment and one way to link pages, served or written out.

The same templates render for the server (:mod:`arena.web.app`, links are URL paths) and for
the static report (:mod:`arena.web.report`, links are file names in one folder), so the two can
not drift apart.  Autoescape is on for every template: names, fault messages and stderr come
from bots and are text, never markup.  Data for the page's scripts goes in a
``<script type="application/json">`` block through :func:`script_json`, which escapes what could
end the block.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import jinja2
import orjson
from markupsafe import Markup

HERE = Path(__file__).parent
STATIC = HERE / "static"

def script_json(data: Any) -> Markup:
    """JSON safe inside a ``<script type="application/json">`` block: ``<``, ``>`` and ``&`` as
    ``\\u`` escapes, so a bot's ``</script>`` can not end the block (the JSON means the same)."""
    text = orjson.dumps(data).decode()
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


class Links:
    """Where a page lives: URL paths on the server."""

    static_report = False

    def home(self) -> str:
        return "/"

    def board(self, game: str) -> str:
        return f"/leaderboard/{quote(game)}"

    def tournament(self, tid: str) -> str:
        return f"/tournaments/{quote(tid, safe='')}"

    def bot(self, name: str) -> str:
        return f"/bots/{quote(name, safe='')}"

    def game(self, gid: str) -> str:
        return f"/games/{quote(gid)}"

    def games(self, **filters: Any) -> str:
        query = urlencode({k: v for k, v in filters.items() if v not in (None, "", [])}, doseq=True)
        return "/games" + (f"?{query}" if query else "")

    def static(self, name: str) -> str:
        return f"/static/{name}"

    def progress(self, tid: str) -> str:
        return f"/api/tournaments/{quote(tid, safe='')}/progress"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def file_name(kind: str, key: str) -> str:
    """A page's file in the report folder: readable, and distinct for distinct keys (a hash of the
    key follows, since two ids may read the same once ``/`` is replaced)."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    return f"{kind}-{_UNSAFE.sub('_', key)[:80]}-{digest}.html"


class ReportLinks(Links):
    """Where a page lives in a static report: a file of one folder, linked relatively, so the
    folder works from any place (a web server, a mail attachment unpacked, file://).  Pages the
    report does not hold (another tournament, a game without a replay page) are not linked."""

    static_report = True

    def __init__(self, tournament_id: str, games_written: frozenset[str] = frozenset(),
                 bots_written: frozenset[str] = frozenset()) -> None:
        self.tournament_id = tournament_id
        self.games_written = games_written
        self.bots_written = bots_written

    def home(self) -> str:
        return "index.html"

    def board(self, game: str) -> str:
        return "index.html"

    def tournament(self, tid: str) -> str:
        return "index.html" if tid == self.tournament_id else ""

    def bot(self, name: str) -> str:
        return file_name("bot", name) if name in self.bots_written else ""

    def game(self, gid: str) -> str:
        return file_name("game", gid) if gid in self.games_written else ""

    def games(self, **filters: Any) -> str:
        return "games.html" if not any(filters.get(k) for k in ("bot", "round", "faults")) else ""

    def static(self, name: str) -> str:
        return f"static/{name}"

    def progress(self, tid: str) -> str:
        return ""


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _by_place(places: list[int]) -> list[tuple[int, int]]:
    """``(place, seat)`` best first: a game's line reads as its finishing order."""
    return sorted((p, s) for s, p in enumerate(places))


def _clamp(x: float, low: float, high: float) -> float:
    return max(low, min(high, x))


def environment() -> jinja2.Environment:
    """The templates with autoescape on, StrictUndefined (a typo in a template is an error, not
    an empty cell) and the filters the pages share."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _fmt
    env.filters["script_json"] = script_json
    env.filters["zip_seats"] = _by_place
    env.filters["clamp"] = _clamp
    return env


def render(env: jinja2.Environment, template: str, links: Links, **context: Any) -> str:
    """One page."""
    return env.get_template(template).render(links=links, **context)
