"""The stored games a view is computed from: read once from a store, in rating order.

Every view of this package (leaderboard, head-to-head, crosstable, standings, history) starts
from a :class:`Pool`: the rateable games of a tournament, a game, or the whole database, each
with the unit of evidence it belongs to, the faults of the same games, and what was left out.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from arena.ratings import GameOutcome, iter_outcomes
from arena.storage import ResultRow, Store


@dataclass(frozen=True, slots=True)
class Pool:
    """Rateable games in rating order, and how each is grouped for the confidence statistics.

    ``unit`` maps a game id to its unit of evidence: the table it was played at (tournament,
    round, table), whose seat rotations share a deal and so are not independent of each other
    (docs/confidence.md); a game of no table is a unit of its own."""

    outcomes: tuple[GameOutcome, ...]
    unit: dict[str, Hashable] = field(default_factory=dict)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)  # bot -> kind -> count, every game read
    excluded: int = 0  # games left out by ``exclude_faults``
    stored: int = 0  # games read, rateable or not
    games: tuple[str, ...] = ()  # names of the games (reactor, powder-keg) among them
    unfinished: tuple[str, ...] = ()  # tournaments among them that are not finished

    def match_of(self, outcome: GameOutcome) -> Hashable:
        """The unit of ``outcome`` (for :mod:`arena.ratings.confidence`'s ``match_of``)."""
        return self.unit.get(outcome.game_id or "", outcome.game_id)

    def bots(self) -> list[str]:
        """Every bot with a rateable game, by name."""
        return sorted({bot for o in self.outcomes for bot in o.bots})


def _unit(row: ResultRow, separate_deals: set[str]) -> Hashable:
    """The games that share a deal: a table's rotations (its matches), or, in a tournament whose
    rotations are dealt apart (``duplicate = false``), the match alone, as the stop rule counts
    them (``Tournament.deal_key``), so a board and a stop decision judge the same evidence."""
    if row.round is None and row.table_no is None or row.tournament in separate_deals:
        return row.match_id or row.game_id
    return (row.tournament, row.round, row.table_no)


def faulty(seats: list[ResultRow]) -> bool:
    """Whether a game had a fault or a forfeit at some seat: what ``exclude_faults`` leaves out."""
    return any(r.faults or r.forfeited for r in seats)


def load_pool(store: Store, *, tournament: str | None = None, game: str | None = None,
              exclude_faults: bool = False) -> Pool:
    """The games of ``tournament`` and/or ``game`` (all when neither), read in one snapshot.

    ``exclude_faults`` leaves out every game in which some seat faulted or forfeited (an
    organiser's view with infrastructure accidents left out, as psyleague's ``skip_errors``); the
    faults column still counts every fault of the games read, so nothing is hidden."""
    with store.snapshot():
        rows = list(store.iter_results(tournament=tournament, game=game))
        faults = store.fault_counts(tournament=tournament, game=game)
        tournaments = store.tournaments()
    statuses = {t.id: t.status for t in tournaments}
    separate = {t.id for t in tournaments if t.spec.get("duplicate") is False}
    by_game: dict[str, list[ResultRow]] = {}
    for row in rows:
        by_game.setdefault(row.game_id, []).append(row)
    kept: list[ResultRow] = []
    excluded = 0
    for seats in by_game.values():
        if exclude_faults and faulty(seats):
            excluded += 1
        else:
            kept.extend(seats)
    unit = {row.game_id: _unit(row, separate) for row in kept}
    counted = {row.tournament for row in rows}
    return Pool(
        outcomes=tuple(iter_outcomes(kept)),
        unit=unit,
        faults=faults,
        excluded=excluded,
        stored=len(by_game),
        games=tuple(sorted({row.game for row in rows})),
        unfinished=tuple(sorted(t for t in counted if t is not None and statuses.get(t) != "finished")),
    )
