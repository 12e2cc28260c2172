"""The leaderboard with how sure it is, and the rating history behind it.

The order is TrueSkill's (conservative score, :func:`arena.ratings.leaderboard`); how sure each
line and each neighbouring pair is comes from the results themselves
(:func:`arena.ratings.confidence.ranking_confidence`: a mean-place interval and a rank range per
bot, the chance that each bot is truly better than the next one, and whether the two are
separated), never from TrueSkill's own miscalibrated probability (docs/confidence.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from trueskill import Rating

from arena import ratings as rating
from arena.ratings.confidence import ALPHA, DELTA, Status, ranking_confidence
from arena.results.pool import Pool


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One leaderboard line: the rating, the results, and how sure its place is.

    ``p_better_than_next`` and ``next_status`` compare this bot with the one below it (None on
    the last line): the confidence that it is truly better, and ``separated``, ``tied`` or
    ``open`` (not yet separated: more games are needed, or the results put the lower one ahead)."""

    rank: int
    bot: str
    score: float  # mu - 3 sigma, what the order is by
    mu: float
    sigma: float
    games: int
    wins: int
    mean_place: float
    mean_place_low: float  # the 95% interval of the bot's true mean place (within 1..its largest table)
    mean_place_high: float
    rank_low: int  # the 95% range of its rank by mean place, resampling whole tables
    rank_high: int
    faults: dict[str, int]
    p_better_than_next: float | None
    next_status: Status | None

    @property
    def separated_from_next(self) -> bool:
        """Whether the results put this bot ahead of the next one (the last line: True)."""
        return self.next_status in (None, "separated")

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardRow:
        """The line :meth:`to_json` gave."""
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Board:
    """The leaderboard of a pool of games, and what went into it."""

    rows: tuple[BoardRow, ...]
    games: int  # rated games
    excluded: int  # games left out for a fault or forfeit (``exclude_faults``)
    alpha: float
    delta: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"rows": [r.to_json() for r in self.rows], "games": self.games, "excluded": self.excluded,
                "alpha": self.alpha, "delta": self.delta}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Board:
        """The board :meth:`to_json` gave (a stored view read back)."""
        return cls(tuple(BoardRow.from_json(r) for r in data["rows"]), data["games"], data["excluded"],
                   data["alpha"], data["delta"])


def board(pool: Pool, *, alpha: float = ALPHA, delta: float = DELTA, seed: int | str = 0,
          rank_ranges: bool = True) -> Board:
    """TrueSkill's leaderboard of ``pool`` with each line's interval and each pair's separation.
    ``rank_ranges=False`` skips the rank ranges' resampling (each range is then the rank itself):
    it resamples every table a thousand times (past 5,000 tables, draws from that resampling's
    normal limit: :func:`arena.ratings.confidence.ranking_confidence`)."""
    table = rating.rate(pool.outcomes, rating.make_env())
    lines = rating.leaderboard(table, pool.outcomes, pool.faults)
    sure = ranking_confidence(pool.outcomes, [r.bot for r in lines], match_of=pool.match_of, alpha=alpha,
                              delta=delta, seed=seed, rank_ranges=rank_ranges)
    intervals = {b.bot: b for b in sure.bots}
    # A place lies in 1..seats: an interval past those ends (few games) says no more than the ends.
    seats = {bot: 1 for bot in intervals}
    for o in pool.outcomes:
        for bot in o.bots:
            seats[bot] = max(seats[bot], len(o.bots))
    below = {n.upper: n for n in sure.neighbours}
    rows = []
    for line in lines:
        iv = intervals[line.bot]
        nxt = below.get(line.bot)
        rows.append(BoardRow(line.rank, line.bot, line.score, line.mu, line.sigma, line.games, line.wins,
                             line.mean_place, max(iv.low, 1.0), min(iv.high, float(seats[line.bot])), iv.rank_low, iv.rank_high, line.faults,
                             nxt.p_upper_better if nxt else None, nxt.status if nxt else None))
    return Board(tuple(rows), len(pool.outcomes), pool.excluded, alpha, delta)


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """A bot's rating right after the ``game``-th rated game of the pool (1-based)."""

    game: int
    game_id: str | None
    bot: str
    mu: float
    sigma: float
    score: float  # mu - 3 sigma

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class History:
    """Every rating update of the chosen bots, game by game (each bot only where it played)."""

    bots: tuple[str, ...]
    games: int  # rated games in the pool
    rows: tuple[HistoryRow, ...]

    def of(self, bot: str) -> tuple[HistoryRow, ...]:
        """One bot's points, in game order."""
        return tuple(r for r in self.rows if r.bot == bot)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"bots": list(self.bots), "games": self.games, "rows": [r.to_json() for r in self.rows]}


def history(pool: Pool, bots: list[str] | None = None) -> History:
    """The ratings of ``bots`` (default: every rated bot, by final score) after each game,
    recomputed from the pool exactly as the leaderboard is (so the last point is its rating)."""
    table = rating.rate(pool.outcomes, rating.make_env())
    order = sorted(table.ratings, key=lambda b: (-table.score(b), b))
    chosen = [b for b in order if bots is None or b in bots]
    wanted = set(chosen)
    # The score as the board has it: TrueSkill's expose, mu - 3 sigma under make_env's prior.
    rows = tuple(HistoryRow(p.seq, p.game_id, p.bot, p.mu, p.sigma, table.env.expose(Rating(p.mu, p.sigma)))
                 for p in table.history if p.bot in wanted)
    return History(tuple(chosen), len(pool.outcomes), rows)
