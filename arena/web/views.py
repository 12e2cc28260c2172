"""What each page shows, computed from a read-only store: plain dataclasses for the templates.

The server (:mod:`arena.web.app`) and the static report (:mod:`arena.web.report`) render the
same views, so a page looks the same served or mailed.  Nothing here writes: the store is opened
read-only by the caller.  Ratings are recomputed from the stored games (they are a cache in the
database), and kept in :class:`RatingCache` for as long as no game is added, so that a long
history is rated once, not on every page.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from arena import results
from arena.ratings.confidence import Crosstable
from arena.results import Board, BoardRow, Standings
from arena.storage import GameSummary, Store, Tournament

T = TypeVar("T")

PAGE_SIZE = 50
# Rank ranges resample every table of a pool a thousand times: seconds for a few thousand games,
# many minutes for 50,000.  Past this many games a board leaves them out (and says so).
RANK_RANGE_GAMES = 20_000
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
    the results layer's board (:func:`arena.results.board`) and crosstable, titled for a page."""

    title: str
    game: str | None
    board: Board | None
    cross: Crosstable | None
    note: str = ""
    rank_ranges: bool = True  # False: past RANK_RANGE_GAMES, each rank range is the rank itself

    @property
    def rows(self) -> tuple[BoardRow, ...]:
        return self.board.rows if self.board is not None else ()

    @property
    def games(self) -> int:
        return self.board.games if self.board is not None else 0


@dataclass(slots=True)
class RatingCache:
    """What is costly to compute (ratings, standings, a bot's page), kept while the database
    holds the same games: rating 100,000 games takes seconds, a page must take milliseconds.
    Games are append-only and each commit takes the next number, so the newest commit number
    (with the count of finished tournaments) says whether anything changed since."""

    entries: dict[tuple[Any, ...], tuple[tuple[int, int], Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    making: dict[tuple[Any, ...], threading.Lock] = field(default_factory=dict)

    def memo(self, store: Store, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """``make()``, or what it gave for ``key`` while no game has been added since.  One
        request makes a value at a time: another that wants it meanwhile waits for it rather
        than rating the same games again."""
        stamp = _stamp(store)
        with self.lock:
            making = self.making.setdefault(key, threading.Lock())
        with making:
            with self.lock:
                hit = self.entries.get(key)
            if hit is not None and hit[0] >= stamp:
                return hit[1]
            value = make()
            with self.lock:
                self.entries[key] = (stamp, value)
            return value

    def get(self, store: Store, tournament: str | None, game: str | None) -> Leaderboard:
        """The leaderboard of a scope."""
        return self.memo(store, ("board", tournament, game),
                         lambda: leaderboard(store, tournament=tournament, game=game))


def _stamp(store: Store) -> tuple[int, int]:
    """What a cached value depends on: the games (the newest commit number) and how many
    tournaments are finished (a board says which of its tournaments are not)."""
    return newest_game(store), sum(t.status == "finished" for t in store.tournaments())


def newest_game(store: Store) -> int:
    """The newest game's commit number (0: none): one step down the index on ``seq``."""
    page = store.game_page(limit=1)
    return page[0].seq if page else 0


def leaderboard(store: Store, *, tournament: str | None = None, game: str | None = None) -> Leaderboard:
    """The board and crosstable of one scope (read in one snapshot by :func:`arena.results.load_pool`)."""
    pool = results.load_pool(store, tournament=tournament, game=game)
    title = f"tournament {tournament}" if tournament else f"all {game} games" if game else "all games"
    if len(pool.games) > 1:
        return Leaderboard(title, None, None, None,
                           f"this scope holds games of {' and '.join(pool.games)}: bots of two games never meet")
    if not pool.outcomes:
        return Leaderboard(title, pool.games[0] if pool.games else game, None, None,
                           "no rated games yet" if not pool.stored else "none of the stored games can be rated")
    ranges = len(pool.outcomes) <= RANK_RANGE_GAMES
    board = results.board(pool, rank_ranges=ranges)
    note = (f"not finished: {', '.join(pool.unfinished)} (these ratings include only the games played so far)"
            if pool.unfinished else "")
    return Leaderboard(title, pool.games[0], board, results.cross(pool, [r.bot for r in board.rows]), note, ranges)


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
    games, matches = cache.memo(store, ("size", t.id), lambda: store.tournament_size(t.id))
    return Progress(store.status(t), games, matches, planned_matches(t.spec))


@dataclass(frozen=True, slots=True)
class TournamentView:
    """Everything the tournament page shows."""

    tournament: Tournament
    progress: Progress
    board: Leaderboard
    standings: Standings  # by the tournament's own scoring: points, tiebreaks, each round's tables
    games: dict[tuple[int, int], list[TableGame]]  # (round, table) -> its games shown, in schedule order
    heat: list[list[float | None]]  # crosstable cells: mean place difference, row bot ahead if > 0
    shown_games: int = 0  # games in the round tables (the newest)


# The round tables list at most this many games (the newest), so a huge tournament's page stays small.
ROUND_GAMES_SHOWN = 120


def tournament_view(store: Store, t: Tournament, cache: RatingCache) -> TournamentView:
    """The tournament page: status, leaderboard, standings, round tables, crosstable."""
    board = cache.get(store, t.id, None)
    table = cache.memo(store, ("standings", t.id), lambda: results.standings(store, t.id))
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
    return TournamentView(t, progress(store, t, cache), board, table,
                          at, heat, len(games))


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


def thinned(points: Sequence[T], most: int) -> list[T]:
    """At most ``most`` of ``points``, evenly spaced, first and last kept."""
    if len(points) <= most:
        return list(points)
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


def bot_view(store: Store, name: str) -> BotView:
    """A bot's page: its versions, games, rating history per tournament, seats and faults."""
    current = store.bot(name)
    versions = store.bot_history(name)
    played = [t for t in store.tournaments() if name in t.spec.get("bot_versions", {})]
    history: dict[str, list[dict[str, float]]] = {}
    for t in reversed(played):  # oldest first
        points = thinned(store.bot_rating_history(t.id, name), CHART_POINTS)
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


def games_page(store: Store, *, tournament: str | None, bot: str | None, game: str | None,
               before: int | None, limit: int = PAGE_SIZE) -> GamesPage:
    """Games newest first, ``limit`` of them with a commit number below ``before``."""
    rows = store.game_page(tournament=tournament, bot=bot, game=game, before=before, limit=limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    filters = {k: v for k, v in (("tournament", tournament), ("bot", bot), ("game", game)) if v}
    if limit != PAGE_SIZE:
        filters["limit"] = str(limit)
    return GamesPage(rows, filters, rows[-1].seq if more and rows else None)
