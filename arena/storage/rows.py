"""What the store takes and hands back: plain, frozen rows with no behaviour and no database.

Every backend speaks these types, and the layers above see nothing else of storage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class BotVersion:
    """One stored version of a bot: its content is identified by ``sha256``."""

    id: int
    name: str
    game: str
    version: int
    sha256: str
    filename: str
    command: list[str]
    added: str
    check_report: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BotSummary:
    """A bot with its current version and how many games it has played (any version)."""

    name: str
    game: str
    version: int
    versions: int
    games: int


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as started: its parsed spec and seed fix every game it will play."""

    id: str
    name: str
    game: str
    spec: dict[str, Any]
    seed: str | int | None
    created: str
    status: str
    finished: str | None = None
    stop: dict[str, Any] | None = None  # under a stop rule: its decision when the last run ended


@dataclass(frozen=True, slots=True)
class GameRow:
    """A finished game as the coordinator hands it over; ``seats`` are bot version ids.

    ``round``, ``table_no``, ``match_id`` (the match as the runner names it, None for a game of
    no match) and ``match_game`` place the game in its schedule: the rating order.  Storage
    orders by them and never reads them out of ``id``."""

    id: str
    game: str
    seats: list[int]
    winner: int | None
    record: dict[str, Any]
    tournament: str | None = None
    variants: list[str] = field(default_factory=list)
    capped: bool = False
    round: int | None = None
    table_no: int | None = None
    match_id: str | None = None
    match_game: int = 0
    # What each seat's bot is called in this game's results, where not its bot's name: a
    # tournament that plays one stored version names it ``NAME@N`` (rated on its own).
    seat_names: tuple[str, ...] = ()
    seed: str | int | None = None
    started: str | None = None
    finished: str | None = None  # None: stamped with the time of the commit
    duration_ms: int | None = None


@dataclass(frozen=True, slots=True)
class SeatResult:
    """How one seat finished; the store fills in its bot and points from the game."""

    seat: int
    place: int
    forfeited: bool = False


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One line of ``arena games``: bots and places in seat order.

    ``forfeited`` and ``collateral`` (for each fault of the seat in this game, whether it was
    collateral) are what a view needs to tell a seat that was already disqualified from the
    match (the referee's rule, :func:`arena.referee.standing.disqualified_seats`) from one that
    lost in play."""

    id: str
    tournament: str | None
    game: str
    bots: list[str]
    places: list[int]
    winner: int | None
    capped: bool
    faults: int
    finished: str
    forfeited: list[bool] = field(default_factory=list)
    collateral: list[list[bool]] = field(default_factory=list)
    # Where the game sits: its commit number (the key of a page of games, :meth:`Store.game_page`)
    # and its place in the schedule (a tournament's round and table).
    seq: int = 0
    round: int | None = None
    table_no: int | None = None
    variants: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One seat of one game, in rating order (:meth:`Store.iter_results`): the input of the
    ratings.  ``seq`` is the game's commit number, kept for information; it plays no part in
    the order.  ``round``, ``table_no`` and ``match_id`` place the game in its schedule (a
    table's games share a deal, so the results layer counts them as one unit of evidence);
    ``faults`` is how many faults this seat had in this game."""

    game_id: str
    seq: int
    tournament: str | None
    game: str
    seat: int
    bot: str
    bot_version_id: int
    place: int
    points: int
    forfeited: bool
    round: int | None = None
    table_no: int | None = None
    match_id: str | None = None
    faults: int = 0


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's rating right after the ``seq``-th rated game."""

    seq: int
    game_id: str | None
    bot: str
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class StoredView:
    """A view kept by :meth:`Store.save_view`: its value (plain JSON values) and the stamp of the
    games it was made from (what the caller compares with the games stored now)."""

    key: str
    stamp: tuple[int, ...]
    value: dict[str, Any]
    made: str  # when, ISO 8601 UTC


class RatingPointLike(Protocol):
    """Anything with a rating point's attributes (ratings.py keeps its own type)."""

    seq: int
    game_id: str | None
    bot: str
    mu: float
    sigma: float
