"""A tournament's standings by its own scoring: the points its format gives (for a Swiss, the
points it paired on), tiebreaks, byes, and who sat at which table in which round.

The points are the format's own (:meth:`arena.tournament.formats.Format.standings`, called on
the stored games), so they can not drift from what the Swiss paired on.  Bots are ordered by:

* **Swiss**: points, then **Buchholz**, then **median Buchholz**, then wins, then name.
  Buchholz is the strength of the tables a bot met: for each round it played, the mean final
  points of its tablemates, summed over the rounds (the mean, not the sum, so that a bot at a
  table of 3 is not behind one at a table of 4); a round it sat out (a bye) counts its own
  final points, in place of the opponents it did not have (FIDE's "virtual opponent" in its
  simplest form).  Median Buchholz is the same sum without the best and the worst round's
  contribution (with at least 3 rounds; else it equals Buchholz): one lucky or unlucky draw of
  tablemates weighs less.
* **Round-robin**: points, then mean place, then wins, then name (everyone met everyone: the
  strength of the tables is the same for all, so Buchholz would say nothing).

``wins`` count the games a bot finished first alone; mean place is over the games where some
bot played (a game nobody played says nothing, and gives no points either).  Tables are read
from the stored games, so in a round that is not finished (a failed match, an interrupted run)
a table with no stored game yet is not shown, and its bots count as sitting out until it is.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from typing import Any

from arena.core.pairing import Pairing
from arena.games import GameResult
from arena.ratings.confidence import PairStats
from arena.results.pairs import h2h
from arena.results.pool import load_pool
from arena.storage import ResultRow, Store
from arena.tournament.formats import Format, Played, get_format
from arena.tournament.spec import BotEntry, TournamentSpec

SWISS_TIEBREAKS = ("points", "buchholz", "median_buchholz", "wins", "bot")
ROUND_ROBIN_TIEBREAKS = ("points", "mean_place", "wins", "bot")


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One bot's line of the standings (``buchholz`` and ``median_buchholz``: Swiss only)."""

    rank: int
    bot: str
    points: float
    points_exact: str  # the exact fraction the order compares, e.g. "7/3"
    rounds: int  # rounds it played at a table
    byes: int  # rounds it sat out
    games: int
    wins: int
    mean_place: float | None
    buchholz: float | None
    median_buchholz: float | None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StandingRow:
        """The line :meth:`to_json` gave."""
        return cls(**data)


@dataclass(frozen=True, slots=True)
class TableResult:
    """One table of one round: who sat (seat order of its first match), their points that round
    and mean place at the table, over its ``matches`` matches and ``games`` games."""

    round: int
    table: int
    bots: tuple[str, ...]
    points: dict[str, float]
    mean_place: dict[str, float | None]
    matches: int
    games: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {**asdict(self), "bots": list(self.bots)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableResult:
        """The table :meth:`to_json` gave."""
        return cls(**{**data, "bots": tuple(data["bots"])})


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A round's tables, and the bots of the field that sat it out."""

    number: int
    tables: tuple[TableResult, ...]
    byes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"number": self.number, "tables": [t.to_json() for t in self.tables], "byes": list(self.byes)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundResult:
        """The round :meth:`to_json` gave."""
        return cls(data["number"], tuple(TableResult.from_json(t) for t in data["tables"]), tuple(data["byes"]))


@dataclass(frozen=True, slots=True)
class Standings:
    """A tournament's standings (``rounds_planned``: the rounds its schedule has)."""

    tournament: str
    format: str
    status: str
    rows: tuple[StandingRow, ...]
    rounds: tuple[RoundResult, ...]
    rounds_planned: int
    tiebreaks: tuple[str, ...]
    # A gauntlet's report: each candidate against each pool bot, then the candidates against each
    # other (two versions of one bot: their head-to-head with its interval); empty in other formats.
    versus: tuple[PairStats, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"tournament": self.tournament, "format": self.format, "status": self.status,
                "rows": [r.to_json() for r in self.rows], "rounds": [r.to_json() for r in self.rounds],
                "rounds_planned": self.rounds_planned, "tiebreaks": list(self.tiebreaks),
                "versus": [p.to_json() for p in self.versus]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Standings:
        """The standings :meth:`to_json` gave (a stored view read back)."""
        return cls(data["tournament"], data["format"], data["status"],
                   tuple(StandingRow.from_json(r) for r in data["rows"]),
                   tuple(RoundResult.from_json(r) for r in data["rounds"]), data["rounds_planned"],
                   tuple(data["tiebreaks"]), tuple(PairStats.from_json(p) for p in data["versus"]))


def stored_format(stored: dict[str, Any]) -> Format:
    """The format of a stored tournament under the rules it began with (its ``schedule``),
    rebuilt from its stored spec (:meth:`TournamentSpec.to_json` plus the run's own keys)."""
    spec = dict(stored)
    schedule = spec.pop("schedule", 1)  # stored before the rules had a number: the first
    spec.pop("bot_versions", None)
    known = {f.name for f in fields(TournamentSpec)} - {"options"}
    values = {k: v for k, v in spec.items() if k in known}
    values["bots"] = tuple(BotEntry(b["name"]) for b in spec.get("bots", ()))
    for key in ("variants",):
        values[key] = tuple(values.get(key, ()))
    options = {k: v for k, v in spec.items() if k not in known}
    return get_format(spec["format"])(TournamentSpec(**values, options=options), schedule)


@dataclass(slots=True)
class _Match:
    pairing: Pairing
    games: list[GameResult]
    places: dict[str, list[int]]  # bot -> its places in the games where some bot played


def _matches(rows: list[ResultRow]) -> list[_Match]:
    """The stored matches in rating order, each with its games' results."""
    by_game: dict[str, list[ResultRow]] = {}
    for row in rows:
        by_game.setdefault(row.game_id, []).append(row)
    matches: dict[Hashable, _Match] = {}
    for seats in by_game.values():
        first = seats[0]
        key = first.match_id or first.game_id
        bots = tuple(r.bot for r in seats)
        m = matches.get(key)
        if m is None:
            pairing = Pairing(str(key), first.round or 1, first.table_no or 1, bots, deal="", rotation=0)
            m = matches[key] = _Match(pairing, [], {})
        places = [r.place for r in seats]
        forfeits = tuple(r.seat for r in seats if r.forfeited)
        firsts = [s for s, p in enumerate(places) if p == 1]
        m.games.append(GameResult(tuple(places), firsts[0] if len(firsts) == 1 else None, forfeits=forfeits))
        if len(forfeits) < len(seats):
            for r in seats:
                m.places.setdefault(r.bot, []).append(r.place)
    return list(matches.values())


def _mean(values: list[int]) -> float | None:
    return sum(values) / len(values) if values else None


def standings(store: Store, tournament: str) -> Standings:
    """The standings of ``tournament`` from its stored games (a StorageError if there is none)."""
    with store.snapshot():
        t = store.tournament(tournament)
        status = store.status(t)
        rows = list(store.iter_results(tournament=tournament))
    fmt = stored_format(t.spec)
    field = list(fmt.bots)
    matches = _matches(rows)
    played = {m.pairing.id: Played(m.pairing.seats, tuple(m.games)) for m in matches}

    def results(pairing: Pairing) -> Played:
        return played[pairing.id]

    total = fmt.standings([m.pairing for m in matches], results)
    round_results, met = _rounds(matches, fmt, field, results)
    tally = _Tally.of(matches)
    everyone = sorted(set(field) | set(total))
    byes = {b: sum(b in r.byes for r in round_results) for b in everyone}
    swiss = fmt.name == "swiss"
    tb = {b: _buchholz(total, met.get(b, []), byes[b], b) for b in everyone} if swiss else {}

    def key(bot: str) -> tuple[Any, ...]:
        points = -total.get(bot, Fraction(0))
        w = -tally.wins.get(bot, 0)
        if swiss:
            return (points, -tb[bot][0], -tb[bot][1], w, bot)
        mp = _mean(tally.places.get(bot, []))
        return (points, mp if mp is not None else float("inf"), w, bot)

    lines = []
    for rank, bot in enumerate(sorted(everyone, key=key), start=1):
        pts = total.get(bot, Fraction(0))
        lines.append(StandingRow(
            rank, bot, float(pts), str(pts), len(met.get(bot, [])), byes[bot], tally.games.get(bot, 0),
            tally.wins.get(bot, 0), _mean(tally.places.get(bot, [])),
            float(tb[bot][0]) if swiss else None, float(tb[bot][1]) if swiss else None))
    return Standings(tournament, fmt.name, status, tuple(lines), round_results, fmt.round_count,
                     SWISS_TIEBREAKS if swiss else ROUND_ROBIN_TIEBREAKS, _versus(store, tournament, fmt))


def _rounds(matches: list[_Match], fmt: Format, field: list[str], results: Callable[[Pairing], Played]
            ) -> tuple[tuple[RoundResult, ...], dict[str, list[list[str]]]]:
    """Each round's tables (their points by the format, mean places, matches and games) and its
    byes, and for each bot its tablemates in every round it played."""
    tables: dict[tuple[int, int], list[_Match]] = {}
    for m in matches:
        tables.setdefault((m.pairing.round, m.pairing.table), []).append(m)
    rounds: dict[int, list[TableResult]] = {}
    met: dict[str, list[list[str]]] = {b: [] for b in field}
    for (number, table), ms in tables.items():
        round_points = fmt.standings([m.pairing for m in ms], results)
        seated = ms[0].pairing.seats  # every match of a table seats the same bots, rotated
        places = {b: [p for m in ms for p in m.places.get(b, [])] for b in seated}
        rounds.setdefault(number, []).append(TableResult(
            number, table, tuple(seated), {b: float(round_points.get(b, 0)) for b in seated},
            {b: _mean(places[b]) for b in seated}, len(ms), sum(len(m.games) for m in ms)))
        for b in seated:
            met.setdefault(b, []).append([x for x in seated if x != b])
    return tuple(
        RoundResult(n, tuple(sorted(ts, key=lambda x: x.table)),
                    tuple(b for b in field if all(b not in x.bots for x in ts)))
        for n, ts in sorted(rounds.items())), met


@dataclass(slots=True)
class _Tally:
    """Each bot's places (in games where some bot played), wins and games over the matches."""

    places: dict[str, list[int]]
    wins: dict[str, int]
    games: dict[str, int]

    @classmethod
    def of(cls, matches: list[_Match]) -> _Tally:
        tally = cls({}, {}, {})
        for m in matches:
            for g in m.games:
                for seat, bot in enumerate(m.pairing.seats):
                    tally.games[bot] = tally.games.get(bot, 0) + 1
                    tally.wins[bot] = tally.wins.get(bot, 0) + (g.winner == seat)  # winner: the sole first place
            for bot, ps in m.places.items():
                tally.places.setdefault(bot, []).extend(ps)
        return tally


def _buchholz(total: dict[str, Fraction], met: list[list[str]], byes: int, bot: str) -> tuple[Fraction, Fraction]:
    """A bot's Buchholz and median Buchholz (see the module's docstring) from the final points,
    its tablemates in each round it played, and its byes."""
    parts = [sum((total.get(x, Fraction(0)) for x in mates), Fraction(0)) / len(mates) for mates in met if mates]
    parts += [total.get(bot, Fraction(0))] * byes
    whole = sum(parts, Fraction(0))
    median = whole - max(parts) - min(parts) if len(parts) >= 3 else whole
    return whole, median


def _versus(store: Store, tournament: str, fmt: Format) -> tuple[PairStats, ...]:
    """A gauntlet's candidates, each against every pool bot and against each other (what its
    authors ask: is my new version better than the bots I have, and than my old version?)."""
    candidates = tuple(fmt.spec.options.get("candidates") or ()) if fmt.name == "gauntlet" else ()
    if not candidates:
        return ()
    pool = load_pool(store, tournament=tournament)
    others = [b for b in fmt.bots if b not in candidates]
    pairs = [(c, o) for c in candidates for o in others]
    pairs += [(a, b) for i, a in enumerate(candidates) for b in candidates[i + 1:]]
    return tuple(h2h(pool, a, b).pair for a, b in pairs)
