"""TrueSkill ratings: a pure function of game results (style rule 10).

Nothing here reads or writes the database: the CLI loads results from the store, calls
:func:`rate`, and may cache the history with ``Store.save_ratings``.  The same outcomes in the
same order always give the same numbers.  TrueSkill updates depend on the order, so the store
hands results over in a fixed order made from the stored games alone (``Store.iter_results``:
tournaments by creation, each in schedule order: round, table, match, game), never in the order
they were committed, which varies with the worker count and timing.

Parameters (one :class:`trueskill.TrueSkill` environment, made by :func:`make_env` and passed in;
never the module's ``setup()`` global, so two computations can not disturb each other):

* ``mu = 25``, ``sigma = 25/3`` — TrueSkill's usual prior; a new bot's conservative score
  ``mu - 3*sigma`` starts at 0 and rises as its rating firms up.
* ``beta = 25/6`` — the spread of one game's performance around skill (the usual value).
* ``tau = 0`` — no skill drift between games.  Bots are fixed programs, so their skill does not
  change; with TrueSkill's default tau (sigma/100) ratings keep wandering and bots ~0.3 places
  apart swap order for hundreds of games, while with tau = 0 a 4-bot field ranks correctly after
  ~20-40 games (see shared/facts.md).  Ratings are per bot name, so a bot's versions share
  one rating: register a much changed bot under a new name to rate it afresh.
* ``draw_probability = 0.02`` — the chance that two neighbouring seats tie.  Ties in our games
  are rare (a capped game tied at the top, equal scores), so the draw margin is kept small: a win
  by any margin counts almost fully as a win.  It must not be 0: TrueSkill then has no draw
  margin and a tie makes its update divide by zero.  A tie between two bots pulls their ratings
  together firmly (the smaller the draw probability, the more a tie says "these two are equal").

Each game is a free-for-all: every seat is a one-player team, ranked by its place (1 = best,
equal places tie), ``env.rate([(r,) for r in seats], ranks=[place - 1, ...])``.

May import the games, ``arena.core`` and ``arena.errors``; never storage (it is handed
results).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import trueskill


MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = 0.0
DRAW_PROBABILITY = 0.02


def make_env(draw_probability: float = DRAW_PROBABILITY) -> trueskill.TrueSkill:
    """The rating environment described in the module docstring."""
    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=draw_probability)


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """One game for rating: bot names in seat order and their places (1 = best, ties allowed)."""

    bots: tuple[str, ...]
    places: tuple[int, ...]
    game_id: str | None = None

    def __post_init__(self) -> None:
        n = len(self.bots)
        where = f"game {self.game_id}: " if self.game_id else ""
        if not 2 <= n <= 6 or len(self.places) != n:
            raise ValueError(f"{where}a game needs 2-6 bots and one place per bot")
        if len(set(self.bots)) != n:
            raise ValueError(f"{where}a bot can not be rated against itself ({', '.join(self.bots)})")
        if any(not 1 <= p <= n for p in self.places):
            raise ValueError(f"{where}places must be from 1 to {n}, not {list(self.places)}")


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """A bot's rating right after the ``seq``-th rated game (1-based)."""

    seq: int
    game_id: str | None
    bot: str
    mu: float
    sigma: float


@dataclass(slots=True)
class RatingTable:
    """Current ratings per bot, plus the history of every update."""

    env: trueskill.TrueSkill
    ratings: dict[str, trueskill.Rating] = field(default_factory=dict)
    history: list[HistoryPoint] = field(default_factory=list)

    def score(self, bot: str) -> float:
        """Conservative score mu - 3*sigma: a bot ranks high only once it is surely good."""
        return self.env.expose(self.ratings[bot])


def rate(games: Iterable[GameOutcome], env: trueskill.TrueSkill) -> RatingTable:
    """Replay the games in order through TrueSkill; a new bot starts at the env's prior."""
    table = RatingTable(env)
    table.history.extend(rate_points(games, table))
    return table


def rate_points(games: Iterable[GameOutcome], table: RatingTable) -> Iterator[HistoryPoint]:
    """:func:`rate` as a stream: update ``table.ratings`` game by game and yield each new
    point instead of keeping it, so a long tournament's history goes to storage without a list."""
    env = table.env
    for seq, game in enumerate(games, start=1):
        before = [table.ratings.get(bot) or env.create_rating() for bot in game.bots]
        after = env.rate([(r,) for r in before], ranks=[p - 1 for p in game.places])
        for bot, (rating,) in zip(game.bots, after):
            table.ratings[bot] = rating
            yield HistoryPoint(seq, game.game_id, bot, rating.mu, rating.sigma)


class SeatResultLike(Protocol):
    """What :func:`outcomes_from_results` needs of a stored result row (``storage.ResultRow``)."""

    game_id: str
    bot: str
    place: int
    forfeited: bool


def outcomes_from_results(rows: Iterable[SeatResultLike]) -> list[GameOutcome]:
    """Group seat rows (in seat order, one game after another) into game outcomes."""
    return list(iter_outcomes(rows))


def iter_outcomes(rows: Iterable[SeatResultLike]) -> Iterator[GameOutcome]:
    """:func:`outcomes_from_results` as a stream (a long tournament is rated without a list).

    Left out: games where a bot sits at the table twice (self-play: TrueSkill has no way to rate
    a player against itself), and games where every seat forfeited (no bot played, e.g. none
    could start: the tie says nothing about skill, and rating it would pull the bots together).
    """
    seats: list[SeatResultLike] = []
    for row in rows:
        if seats and row.game_id != seats[0].game_id:
            if (outcome := _rateable(seats)) is not None:
                yield outcome
            seats = []
        seats.append(row)
    if seats and (outcome := _rateable(seats)) is not None:
        yield outcome


def _rateable(seats: list[SeatResultLike]) -> GameOutcome | None:
    bots = tuple(r.bot for r in seats)
    if len(set(bots)) < len(bots) or all(r.forfeited for r in seats):
        return None
    return GameOutcome(bots, tuple(r.place for r in seats), seats[0].game_id)


@dataclass(frozen=True, slots=True)
class Row:
    """One leaderboard line."""

    rank: int
    bot: str
    score: float
    mu: float
    sigma: float
    games: int
    wins: int
    mean_place: float
    faults: dict[str, int]


def leaderboard(
    table: RatingTable,
    outcomes: Iterable[GameOutcome],
    faults: Mapping[str, Mapping[str, int]] | None = None,
) -> list[Row]:
    """Rated bots sorted by conservative score (then name, so equal scores keep a fixed order).

    ``wins`` counts games a bot finished first alone (the game's point); ``faults`` maps
    bot -> kind -> count, as ``Store.fault_counts`` returns it.
    """
    played: dict[str, int] = {}
    wins: dict[str, int] = {}
    place_sum: dict[str, int] = {}
    for game in outcomes:
        for bot, place in zip(game.bots, game.places):
            played[bot] = played.get(bot, 0) + 1
            place_sum[bot] = place_sum.get(bot, 0) + place
            if place == 1 and game.places.count(1) == 1:
                wins[bot] = wins.get(bot, 0) + 1
    faults = faults or {}
    order = sorted(table.ratings, key=lambda bot: (-table.score(bot), bot))
    return [
        Row(
            rank=rank,
            bot=bot,
            score=table.score(bot),
            mu=table.ratings[bot].mu,
            sigma=table.ratings[bot].sigma,
            games=played.get(bot, 0),
            wins=wins.get(bot, 0),
            mean_place=place_sum.get(bot, 0) / played[bot] if played.get(bot) else 0.0,
            faults=dict(sorted(faults.get(bot, {}).items())),
        )
        for rank, bot in enumerate(order, start=1)
    ]
