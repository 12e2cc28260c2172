"""What each page shows, computed from a read-only store: plain dataclasses for the templates.

The server (:mod:`arena.web.app`) and the static report (:mod:`arena.web.report`) render the
same views, so a page looks the same served or mailed.  Nothing here writes but
:func:`store_views`, which ``arena run`` calls as it ends: the pages' store is opened read-only by
the caller.  Ratings are recomputed from the stored games, kept in :class:`RatingCache` while
their scope holds the same games, and a large scope's page is never kept waiting for them: it
shows the views ``arena run`` stored (or the last made) while they are made again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from arena import results
from arena.ratings.confidence import Crosstable
from arena.results import Board, BoardRow, RoundResult, Standings
from arena.storage import GameSummary, Store, Tournament

T = TypeVar("T")
log = logging.getLogger("arena.web")

PAGE_SIZE = 50
MAX_PAGE = 500
# The newest faults a bot page lists (each with its stderr): a bot that faulted in every one of
# thousands of games still gets a page that loads.
BOT_FAULTS_SHOWN = 30
# A rating chart draws at most this many points a line (evenly spaced, the last always kept): a
# bot of a long tournament has tens of thousands, more than a chart has pixels.
CHART_POINTS = 600


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A leaderboard of one scope (a tournament, or every game of one game) with its crosstable:
    the results layer's board (:func:`arena.results.board`) and crosstable, titled for a page.

    ``as_of``: what the page says of its age (empty: made from the games stored now); ``pending``:
    nothing rated yet, the page shows a placeholder and reloads itself."""

    title: str
    game: str | None
    board: Board | None
    cross: Crosstable | None
    note: str = ""
    as_of: str = ""
    pending: bool = False

    @property
    def rows(self) -> tuple[BoardRow, ...]:
        return self.board.rows if self.board is not None else ()

    @property
    def games(self) -> int:
        return self.board.games if self.board is not None else 0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (what :meth:`Store.save_view` keeps)."""
        return {"title": self.title, "game": self.game, "board": self.board.to_json() if self.board else None,
                "cross": self.cross.to_json() if self.cross else None, "note": self.note}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Leaderboard:
        """The leaderboard :meth:`to_json` gave."""
        return cls(data["title"], data["game"], Board.from_json(data["board"]) if data["board"] else None,
                   Crosstable.from_json(data["cross"]) if data["cross"] else None, data["note"])


# What a cached value was made from: (games in its scope, the newest one's commit number, finished
# tournaments among the scope's).  Games are append-only and each commit takes the next number, so
# a new game changes the first two; a run that ends adds no game but finishes its tournament.
Stamp = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Cached(Generic[T]):
    """A value as the cache has it: ``value`` None while nothing is made yet; ``made_of`` games of
    the scope it was made from, of the ``stored`` ones there are now."""

    value: T | None
    made_of: int
    stored: int
    old: bool = False  # made of other games than those stored now (being made again)

    @property
    def updating(self) -> bool:
        """Whether it is not made of the games stored now (and being made again)."""
        return self.value is None or self.old


@dataclass(slots=True)
class RatingCache:
    """What is costly to compute (ratings, standings, a bot's page), kept while its scope holds
    the same games: rating 100,000 games takes minutes, a page must take milliseconds.

    A scope of at most :data:`INLINE_GAMES` games is computed while its page waits (well under a
    second), as often as it changes.  A larger one is never waited for: its page shows the newest
    value there is (made here before, else the one ``arena run`` stored in the database) and says
    how old it is, while a background thread makes it again from the games stored now (one
    thread for every value, in turn); with no value at all the page says the scope is being
    rated.  ``opener`` opens a store for that thread (a request's store closes with the request);
    without one (the static report) everything is computed inline.  ``apart``: makes a value of
    a key :func:`recipe` knows elsewhere (``arena serve``: in a process of its own,
    :mod:`arena.web.apart`), so that rating a large scope, pure Python for minutes, does not hold
    the server's GIL while its pages wait; without it the thread makes them itself."""

    opener: Callable[[], AbstractContextManager[Store]] | None = None
    apart: Callable[[tuple[Any, ...]], tuple[Stamp, Any]] | None = None
    entries: dict[tuple[Any, ...], tuple[Stamp, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    making: dict[tuple[Any, ...], threading.Lock] = field(default_factory=dict)
    refreshing: set[tuple[Any, ...]] = field(default_factory=set)
    rest_until: dict[tuple[Any, ...], float] = field(default_factory=dict)
    failures: dict[tuple[Any, ...], str] = field(default_factory=dict)  # key -> why its last refresh failed
    queue: deque[tuple[tuple[Any, ...], Callable[[Store], Any], Callable[[Store], Stamp]]] = field(default_factory=deque)
    working: bool = False  # the background thread is running

    def memo(self, store: Store, key: tuple[Any, ...], make: Callable[[Store], T], stamp: Callable[[Store], Stamp],
             stored: Callable[[Store], tuple[Stamp, T] | None] | None = None, *, inline: bool = False,
             first_inline: bool = False) -> Cached[T]:
        """``make(store)`` for ``key``, or what it gave while ``stamp(store)`` was the same; for a
        large scope (unless ``inline``), at once what there is, made again in the background.
        ``stored``: the value kept in the database (what to serve before anything is made here);
        ``first_inline``: with no value at all, make it while the request waits (seconds at most)."""
        now = stamp(store)
        with self.lock:
            hit = self.entries.get(key)
        if hit is None and stored is not None:
            kept = stored(store)
            if kept is not None:
                with self.lock:
                    hit = self.entries.setdefault(key, kept)
        if hit is not None and hit[0] == now:
            return Cached(hit[1], now[0], now[0])
        if inline or self.opener is None or now[0] <= INLINE_GAMES or (first_inline and hit is None):
            return self._make_here(store, key, make, stamp)
        self._refresh(key, make, stamp)
        if hit is None:
            return Cached(None, 0, now[0])
        return Cached(hit[1], hit[0][0], now[0], old=True)

    def _make_here(self, store: Store, key: tuple[Any, ...], make: Callable[[Store], T],
                   stamp: Callable[[Store], Stamp]) -> Cached[T]:
        """Made while the request waits.  One request makes a value at a time: another that
        wants it meanwhile waits for it rather than rating the same games again."""
        with self.lock:
            making = self.making.setdefault(key, threading.Lock())
        with making:
            now = stamp(store)
            with self.lock:
                hit = self.entries.get(key)
            if hit is not None and hit[0] == now:
                return Cached(hit[1], now[0], now[0])
            made, value = _made(store, make, stamp)
            with self.lock:
                self.entries[key] = (made, value)
            return Cached(value, made[0], made[0])

    def _refresh(self, key: tuple[Any, ...], make: Callable[[Store], T], stamp: Callable[[Store], Stamp]) -> None:
        """Make ``key`` again in the background, unless it is queued or being made already (or
        rests: after a refresh that took t seconds, the next starts t seconds later at the
        earliest, so a run adding games to a huge scope keeps the server busy half the time at
        most; after a failure, :data:`RETRY_SECONDS` at least).

        One thread makes them all, one after the other: rating is pure Python, so threads would
        share one core anyway (the GIL), and each more of them would slow every page further."""
        with self.lock:
            if key in self.refreshing or time.monotonic() < self.rest_until.get(key, 0.0):
                return
            self.refreshing.add(key)
            self.queue.append((key, make, stamp))
            if self.working:
                return
            self.working = True
        threading.Thread(target=self._work, name="arena-web-ratings", daemon=True).start()

    def _work(self) -> None:
        """The background thread: the queued values, oldest first, until none is left."""
        while True:
            with self.lock:
                if not self.queue:
                    self.working = False
                    return
                key, make, stamp = self.queue.popleft()
            self._make_again(key, make, stamp)

    def _make_again(self, key: tuple[Any, ...], make: Callable[[Store], Any], stamp: Callable[[Store], Stamp]) -> None:
        assert self.opener is not None
        started = time.monotonic()
        rest = 0.0
        try:
            with self.opener() as store:
                if self.apart is not None and key[0] in RECIPES and not self._shortcut(store, key):
                    made, value = self.apart(key)
                else:
                    made, value = _made(store, make, stamp)
            with self.lock:
                self.entries[key] = (made, value)
                self.failures.pop(key, None)
        except Exception as e:  # the page goes on showing the value it has, and says why
            log.warning("could not make %s again: %s", key, e)
            with self.lock:
                self.failures[key] = str(e)
            rest = RETRY_SECONDS
        finally:
            with self.lock:
                self.refreshing.discard(key)
                self.rest_until[key] = time.monotonic() + max(time.monotonic() - started, rest)

    def _shortcut(self, store: Store, key: tuple[Any, ...]) -> bool:
        """Whether ``key`` is made here at no cost (a board of the same games as one made already)."""
        return key[0] == "board" and self._same_games(store, key[1], key[2]) is not None

    def get(self, store: Store, tournament: str | None, game: str | None) -> Leaderboard:
        """The leaderboard of a scope: made now, or the newest there is with how old it is."""
        key = ("board", tournament, game)
        rate, stamp = recipe(key)

        def make(s: Store) -> Leaderboard:
            same = self._same_games(s, tournament, game)
            return same if same is not None else rate(s)

        cached = self.memo(store, key, make, stamp,
                           lambda s: _stored(s, board_key(tournament, game), Leaderboard.from_json))
        if cached.value is not None:
            return replace(cached.value, as_of=self.age(cached, ("board", tournament, game)))
        title = f"tournament {tournament}" if tournament else f"all {game} games" if game else "all games"
        return Leaderboard(title, game, None, None, f"being rated: {cached.stored:,} games, which takes a while; "
                           "this page reloads itself until the ratings are made" + self.failed(("board", tournament, game)),
                           pending=True)

    def failed(self, key: tuple[Any, ...]) -> str:
        """Why the last making of ``key`` failed, for a placeholder that waits for it ("" if it did not)."""
        with self.lock:
            why = self.failures.get(key)
        return f" (the last try failed: {why})" if why else ""

    def _same_games(self, store: Store, tournament: str | None, game: str | None) -> Leaderboard | None:
        """A tournament's board made for its game's scope, or the other way round, when the two
        hold the same games (a game's first tournament, as it goes on): one rating, not two.
        The tournament's games are among its game's, so the same count and newest game say the
        same games."""
        if (tournament is None) == (game is None):
            return None
        now = scope_stamp(store, tournament, game)
        of = store.tournament(tournament).game if tournament else game
        with self.lock:
            made = list(self.entries.items())
        for key, (stamp, value) in made:
            if key[0] != "board" or stamp[:2] != now[:2] or not isinstance(value, Leaderboard) or value.game != of:
                continue
            if tournament is None and key[1] is not None and key[2] is None:
                return replace(value, title=f"all {game} games", as_of="")
            if tournament is not None and key[1] is None and key[2] == of:
                return replace(value, title=f"tournament {tournament}", as_of="")
        return None

    def age(self, cached: Cached[Any], key: tuple[Any, ...]) -> str:
        """What a page says of a value that is not made of the games stored now."""
        if not cached.updating:
            return ""
        with self.lock:
            failed = self.failures.get(key)
        if failed:
            return f"ratings as of {cached.made_of:,} of {cached.stored:,} games; making them again failed: {failed}"
        return f"ratings as of {cached.made_of:,} of {cached.stored:,} games; updating"


# A scope of at most this many games is rated while its page waits (a fraction of a second); a
# larger one is rated in the background, its page served meanwhile from the last ratings made.
INLINE_GAMES = 2_000
# A value whose making failed is tried again this long after, at the earliest.
RETRY_SECONDS = 5.0
# Stored with every view: raise it when what a stored view holds, or how it is computed from the
# games, changes (the views of an older arena are then made again, not shown as they were).
VIEWS_VERSION = 1


def recipe(key: tuple[Any, ...]) -> tuple[Callable[[Store], Any], Callable[[Store], Stamp]]:
    """How the value of a cache key is made, and the stamp of what it is made from: one place for
    the pages that ask for it and for a process that makes it apart (:mod:`arena.web.apart`),
    which gets the key alone."""
    kind, *args = key
    return RECIPES[kind](*args)


def _board_recipe(tournament: str | None, game: str | None) -> tuple[Callable[[Store], Any], Callable[[Store], Stamp]]:
    return (lambda s: leaderboard(s, tournament=tournament, game=game),
            lambda s: scope_stamp(s, tournament, game))


def _standings_recipe(tournament: str) -> tuple[Callable[[Store], Any], Callable[[Store], Stamp]]:
    return lambda s: standings_view(s, tournament), lambda s: scope_stamp(s, tournament, None)


def _bot_recipe(name: str) -> tuple[Callable[[Store], Any], Callable[[Store], Stamp]]:
    return lambda s: bot_view(s, name), lambda s: scope_stamp(s, None, s.bot(name).game)


# The costly values, by the first item of their cache key: a key is all a process needs to make one.
RECIPES: dict[str, Callable[..., tuple[Callable[[Store], Any], Callable[[Store], Stamp]]]] = {
    "board": _board_recipe, "standings": _standings_recipe, "bot": _bot_recipe}


def make_value(store: Store, key: tuple[Any, ...]) -> tuple[Stamp, Any]:
    """The value of ``key`` made from ``store`` now, with the stamp of the games it read."""
    return _made(store, *recipe(key))


def _made(store: Store, make: Callable[[Store], T], stamp: Callable[[Store], Stamp]) -> tuple[Stamp, T]:
    """``make(store)`` with the stamp of the games it read (one snapshot: a game committed
    meanwhile is in neither)."""
    with store.snapshot():
        return stamp(store), make(store)


def _stored(store: Store, key: str, load: Callable[[dict[str, Any]], T]) -> tuple[Stamp, T] | None:
    """The view ``arena run`` stored under ``key``, if any (and one this code can read)."""
    kept = store.stored_view(key)
    # Made by an arena that computed them otherwise (or laid them out otherwise): made again here.
    if kept is None or len(kept.stamp) != 4 or kept.stamp[3] != VIEWS_VERSION:
        return None
    try:
        value = load(kept.value)
    except (KeyError, TypeError, ValueError) as e:  # written by another version of arena: made again here
        log.info("stored view %s is not readable here (%s); it is made again", key, e)
        return None
    return (kept.stamp[0], kept.stamp[1], kept.stamp[2]), value


def board_key(tournament: str | None, game: str | None) -> str:
    """The stored view of a scope's leaderboard."""
    return f"board:{tournament or ''}:{game or ''}"


def standings_key(tournament: str) -> str:
    """The stored view of a tournament's standings."""
    return f"standings:{tournament}"


def scope_stamp(store: Store, tournament: str | None, game: str | None) -> Stamp:
    """What a scope's cached values depend on (see :data:`Stamp`)."""
    games, newest = store.scope_size(tournament=tournament, game=game)
    finished = sum(t.status == "finished" for t in store.tournaments()
                   if (tournament is None or t.id == tournament) and (game is None or t.game == game))
    return games, newest, finished


def leaderboard(store: Store, *, tournament: str | None = None, game: str | None = None,
                pool: results.Pool | None = None, board: Board | None = None) -> Leaderboard:
    """The board and crosstable of one scope (read in one snapshot by :func:`arena.results.load_pool`;
    ``pool`` and ``board``: that scope's, when the caller has them already)."""
    pool = pool if pool is not None else results.load_pool(store, tournament=tournament, game=game)
    title = f"tournament {tournament}" if tournament else f"all {game} games" if game else "all games"
    if len(pool.games) > 1:
        return Leaderboard(title, None, None, None,
                           f"this scope holds games of {' and '.join(pool.games)}: bots of two games never meet")
    if not pool.outcomes:
        return Leaderboard(title, pool.games[0] if pool.games else game, None, None,
                           "no rated games yet" if not pool.stored else "none of the stored games can be rated")
    if board is None:
        board = results.board(pool)
    note = (f"not finished: {', '.join(pool.unfinished)} (these ratings include only the games played so far)"
            if pool.unfinished else "")
    return Leaderboard(title, pool.games[0], board, results.cross(pool, [r.bot for r in board.rows]), note)


def store_views(store: Store, tournament: str, *, pool: results.Pool | None = None,
                board: Board | None = None) -> None:
    """Compute and keep in the database what the pages of ``tournament`` show that is slow to
    make from many games: its leaderboard and standings, and the leaderboard of every game of its
    game (what ``arena run`` does as it ends, so that ``arena serve`` shows a 50,000-game
    tournament at once, not after minutes of rating).  ``pool`` and ``board``: the tournament's,
    when the caller has them already."""
    t = store.tournament(tournament)
    with store.snapshot():
        stamp = scope_stamp(store, tournament, None)
        own = leaderboard(store, tournament=tournament, pool=pool, board=board)
        table = standings_view(store, tournament)
    store.save_view(board_key(tournament, None), (*stamp, VIEWS_VERSION), own.to_json())
    store.save_view(standings_key(tournament), (*stamp, VIEWS_VERSION), table.to_json())  # a StandingsView
    with store.snapshot():
        game_stamp = scope_stamp(store, None, t.game)
        if game_stamp[:2] == stamp[:2]:  # the game's games are the tournament's: rated once
            every = replace(own, title=f"all {t.game} games")
        else:
            every = leaderboard(store, game=t.game)
    store.save_view(board_key(None, t.game), (*game_stamp, VIEWS_VERSION), every.to_json())


# --- tournaments ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TableGame:
    """One game at one table of one round: the row of a round table."""

    id: str
    bots: list[str]
    places: list[int]
    faults: int
    capped: bool


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a tournament is: what the live page polls."""

    status: str
    games: int
    matches: int
    planned: int | None  # matches the format will play (None: not known from the spec)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "games": self.games, "matches": self.matches, "planned": self.planned}


def planned_matches(spec: dict[str, Any]) -> int | None:
    """How many matches the tournament's format plays, from the stored spec (None when the
    format or its fields are not the ones this code knows)."""
    from arena.tournament.formats import round_robin_size, swiss_size

    try:
        bots = len(spec["bots"])
        if spec["format"] == "round-robin":
            return round_robin_size(bots, spec["seats"], games=spec.get("games") or 1, rotations=spec["rotations"])
        if spec["format"] == "swiss":
            return swiss_size(bots, spec["seats"], rounds=spec.get("rounds"), min_seats=spec.get("min_seats"),
                              rotations=spec["rotations"])
    except (KeyError, TypeError, ValueError):
        return None
    return None


def progress(store: Store, t: Tournament, cache: RatingCache) -> Progress:
    """Games and matches stored so far (counted again only once a game was added), and the
    tournament's status, read every time: a run that ends adds no game, but finishes it."""
    size = cache.memo(store, ("size", t.id), lambda s: s.tournament_size(t.id),
                      lambda s: scope_stamp(s, t.id, None), inline=True).value
    assert size is not None
    games, matches = size
    return Progress(store.status(t), games, matches, planned_matches(t.spec))


@dataclass(frozen=True, slots=True)
class StandingsView:
    """A tournament's standings as its page shows them: every bot's line, but only the last
    :data:`ROUND_TABLES_SHOWN` tables of its rounds (16,667 tables of a 50,000-game round-robin
    took half a second to read back, for a page that lists 60), with the counts of them all."""

    standings: Standings
    rounds: int  # rounds played
    tables: int  # tables of every round

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (what :meth:`Store.save_view` keeps)."""
        return {"standings": self.standings.to_json(), "rounds": self.rounds, "tables": self.tables}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StandingsView:
        """The view :meth:`to_json` gave."""
        return cls(Standings.from_json(data["standings"]), data["rounds"], data["tables"])


def standings_view(store: Store, tournament: str) -> StandingsView:
    """The standings of ``tournament`` cut for its page (see :class:`StandingsView`)."""
    table = results.standings(store, tournament)
    return StandingsView(replace(table, rounds=last_tables(table.rounds, ROUND_TABLES_SHOWN)), len(table.rounds),
                         sum(len(r.tables) for r in table.rounds))


def tournament_standings(store: Store, t: Tournament, cache: RatingCache) -> tuple[StandingsView | None, str]:
    """The tournament's standings (None: being made) and what the page says of their age."""
    key = ("standings", t.id)
    cached = cache.memo(store, key, *recipe(key), lambda s: _stored(s, standings_key(t.id), StandingsView.from_json))
    if cached.value is None:
        return None, (f"being made: {cached.stored:,} games; this page reloads itself until they are"
                      + cache.failed(key))
    # The status is read now: a run that stops (a kill) changes it without a game.
    view = cached.value
    return (replace(view, standings=replace(view.standings, status=store.status(t))),
            cache.age(cached, key).replace("ratings", "standings"))


@dataclass(frozen=True, slots=True)
class TournamentView:
    """Everything the tournament page shows."""

    tournament: Tournament
    progress: Progress
    board: Leaderboard
    standings: Standings | None  # by the tournament's own scoring: points, tiebreaks, each round's tables
    games: dict[tuple[int, int], list[TableGame]]  # (round, table) -> its games shown, in schedule order
    heat: list[list[float | None]]  # crosstable cells: mean place difference, row bot ahead if > 0
    shown_games: int = 0  # games in the round tables (the newest)
    standings_as_of: str = ""  # the standings' age (empty: made of the games stored now)
    rounds: tuple[RoundResult, ...] = ()  # the rounds with the tables shown (the last ROUND_TABLES_SHOWN)
    tables: int = 0  # tables of every round
    rounds_played: int = 0

    @property
    def shown_tables(self) -> int:
        return sum(len(r.tables) for r in self.rounds)

    @property
    def pending(self) -> bool:
        """Whether something on the page is still being made (the page reloads itself)."""
        return self.board.pending or self.standings is None


# The round tables list at most this many games (the newest), so a huge tournament's page stays small.
ROUND_GAMES_SHOWN = 120
# ... and at most this many tables (the last ones): a round-robin of 50,000 games at tables of its
# own made a page of 16,667 tables, a second to render and a quarter of a megabyte to send.
ROUND_TABLES_SHOWN = 60


def last_tables(rounds: Sequence[RoundResult], most: int) -> tuple[RoundResult, ...]:
    """The rounds cut to their last ``most`` tables in schedule order (a round left with none
    is left out, unless it is a round of byes only)."""
    kept: list[RoundResult] = []
    left = most
    for rnd in reversed(rounds):
        if left <= 0:
            break
        tables = rnd.tables[-left:] if left < len(rnd.tables) else rnd.tables
        left -= len(tables)
        kept.append(replace(rnd, tables=tables))
    return tuple(reversed(kept))


def tournament_view(store: Store, t: Tournament, cache: RatingCache) -> TournamentView:
    """The tournament page: status, leaderboard, standings, round tables, crosstable."""
    board = cache.get(store, t.id, None)
    table, table_age = tournament_standings(store, t, cache)
    games = store.game_page(tournament=t.id, limit=ROUND_GAMES_SHOWN)
    at: dict[tuple[int, int], list[TableGame]] = {}
    for g in sorted(games, key=lambda g: (g.round or 0, g.table_no or 0, g.seq)):
        at.setdefault((g.round or 0, g.table_no or 0), []).append(TableGame(g.id, g.bots, g.places, g.faults, g.capped))
    heat: list[list[float | None]] = []
    if board.cross is not None:
        for a in board.cross.bots:
            line: list[float | None] = []
            for b in board.cross.bots:
                line.append(None if a == b else board.cross.pair(a, b).mean)
            heat.append(line)
    return TournamentView(t, progress(store, t, cache), board, table.standings if table else None, at, heat,
                          len(games), table_age, table.standings.rounds if table else (),
                          table.tables if table else 0, table.rounds if table else 0)


# --- bots ----------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BotFault:
    """A fault of the bot, with the stderr its seat wrote in that game."""

    game_id: str
    kind: str
    message: str
    decision: int | None
    collateral: bool
    stderr: str


@dataclass(frozen=True, slots=True)
class SeatLine:
    """The bot's results from one seat at tables of one size (seat 0 moves first)."""

    players: int
    seat: int
    games: int
    wins: int
    mean_place: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games


@dataclass(frozen=True, slots=True)
class BotView:
    """Everything the bot page shows."""

    name: str
    game: str
    versions: list[Any]
    games: int
    seats: list[SeatLine]
    faults: list[BotFault]
    fault_total: int
    history: dict[str, list[dict[str, float]]]  # tournament -> points {x: game number, mu, low, high}
    recent: list[GameSummary]
    as_of: str = ""  # the page's age, when it is not made of the games stored now


def bot_view(store: Store, name: str) -> BotView:
    """A bot's page: its versions, games, rating history per tournament, seats and faults."""
    current = store.bot(name)
    versions = store.bot_history(name)
    played = [t for t in store.tournaments() if name in t.spec.get("bot_versions", {})]
    history: dict[str, list[dict[str, float]]] = {}
    for t in reversed(played):  # oldest first
        points = store.bot_rating_history(t.id, name, most=CHART_POINTS)
        if points:
            history[t.id] = [{"x": p.seq, "mu": round(p.mu, 3), "low": round(p.mu - 3 * p.sigma, 3),
                              "high": round(p.mu + 3 * p.sigma, 3)} for p in points]
    total, newest = store.bot_faults(name, BOT_FAULTS_SHOWN)
    shown = []
    for game_id, f in newest:  # each with its seat's stderr of that game
        shown.append(BotFault(game_id, f.kind, f.message, f.decision, f.collateral,
                              store.logs(game_id).get(f.seat, "")))
    seats = [SeatLine(players, seat, n, wins, place_sum / n) for players, seat, n, wins, place_sum
             in store.bot_seats(name)]
    return BotView(name, current.game, versions, store.bot_games(name), seats, shown, total, history,
                   store.game_page(bot=name, limit=10))


# --- games ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class GamesPage:
    """One page of the games list and the key of the next."""

    games: list[GameSummary]
    filters: dict[str, str]
    next_before: int | None


def games_page(store: Store, *, tournament: str | None, bot: str | None | Sequence[str], game: str | None,
               before: int | None, limit: int = PAGE_SIZE, round: int | None = None,
               faults: bool = False) -> GamesPage:
    """Games newest first, ``limit`` of them with a commit number below ``before``; the filters of
    ``arena games``: a tournament, a game, every bot of ``bot`` at the table, a round, faults."""
    bots = [bot] if isinstance(bot, str) else [b for b in bot or () if b]
    rows = store.game_page(tournament=tournament, bot=bots[0] if bots else None, also=bots[1:], game=game,
                           round=round, faults=faults, before=before, limit=limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    filters: dict[str, Any] = {k: v for k, v in (("tournament", tournament), ("bot", bots), ("game", game),
                                                 ("round", round), ("faults", "1" if faults else None)) if v}
    if limit != PAGE_SIZE:
        filters["limit"] = str(limit)
    return GamesPage(rows, filters, rows[-1].seq if more and rows else None)
