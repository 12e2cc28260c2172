"""The Swiss: a multiplayer Swiss, one round at a time, tables filled from the top of the
standings, repeated tables avoided by a bounded search, byes spread, and seats balanced over the
rounds.  Each round is paired on the points (:func:`~arena.tournament.formats.base.points`) of
the complete results of the rounds before it.

How Swiss rounds are sized and scored is stored with each tournament (its ``schedule``, see
:data:`~arena.tournament.formats.base.SCHEDULE`), so that one begun under an earlier rule resumes
under it (its next round is paired as its first rounds were):

1. full tables plus one leftover table; a round's points summed over its matches.
2. tables seat as many bots as ``min_seats`` allows; a round's points are the mean over the
   table's matches, and a game where nobody played gives nothing.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from arena.core.pairing import Pairing
from arena.tournament.formats.base import (
    MAX_SEATS,
    MIN_SEATS,
    SCHEDULE,
    Format,
    Results,
    Round,
    canonical_field,
    check_seats,
    points,
    rotate,
    shuffled,
)
from arena.tournament.fields import Field, FieldError, Reading, Whole
from arena.tournament.spec import TournamentSpec

# Weight of one earlier meeting of two tablemates against one unit of score displacement
# (a bot moved one table away from its score group costs 1, two tables away 4).
PAIR_WEIGHT = 3
# Table costings a branch-and-bound search may spend when the swaps leave a repeated table:
# enough to search any field of up to 12 bots whole, in about a tenth of a second.
SEARCH_BUDGET = 40_000
# Bound on the improving swaps of one local search, so a round is always cheap.
MAX_SWAPS = 200
MAX_ROUNDS = 1_000


@dataclass(frozen=True, slots=True)
class SwissRound:
    """The pairings of one Swiss round plus the bots sitting it out."""

    round: int
    pairings: tuple[Pairing, ...]
    byes: tuple[str, ...]  # bots without a table this round, in the order they were chosen


def table_sizes(n_bots: int, seats: int, min_seats: int | None = None, *, fill: bool = True) -> tuple[int, ...]:
    """Table sizes of one Swiss round, largest first: as few byes as the sizes allow (each table
    ``min_seats`` to ``seats``; all ``seats`` without ``min_seats``), then as many full tables
    as possible, the short ones as even as possible.  10 bots at 4 seats, ``min_seats = 3``:
    4, 3, 3 and nobody sits out (full tables and one leftover table would give two byes).

    ``fill=False``: the sizes of tournaments begun before that rule (full tables, then one
    table of the leftover bots if ``min_seats`` allows it), so that they resume as they began."""
    check_seats(seats)
    if min_seats is not None and not MIN_SEATS <= min_seats <= seats:
        raise ValueError(f"min_seats must be between {MIN_SEATS} and seats ({seats}), got {min_seats}")
    smallest = seats if min_seats is None else min_seats
    if not fill:
        full, left = divmod(n_bots, seats)
        legacy = [seats] * full + ([left] if left and left >= smallest else [])
        if not legacy:
            raise ValueError(f"{n_bots} bots cannot fill a table (at least {smallest} seats)")
        return tuple(legacy)
    for seated in range(n_bots, smallest - 1, -1):
        tables = -(-seated // seats)
        if tables * smallest > seated:
            continue  # too few bots for that many tables: one more sits out
        missing = tables * seats - seated  # empty seats, spread over as few short tables as can hold them
        short = -(-missing // (seats - smallest)) if missing else 0
        at_short = seated - (tables - short) * seats
        return tuple([seats] * (tables - short)
                     + [at_short // short + (i < at_short % short) for i in range(short)])
    raise ValueError(f"{n_bots} bots cannot fill a table (at least {smallest} seats)")


def table_count(n_bots: int, seats: int, min_seats: int | None = None) -> int:
    """Number of tables in one Swiss round."""
    return len(table_sizes(n_bots, seats, min_seats))


def bye_count(n_bots: int, seats: int, min_seats: int | None = None) -> int:
    """Number of bots sitting out one Swiss round."""
    return n_bots - sum(table_sizes(n_bots, seats, min_seats))


def swiss_rounds_needed(n_bots: int, seats: int) -> int:
    """Default Swiss length: rounds for the top to separate, ceil(log_seats n) + 1, at least 3."""
    check_seats(seats)
    if n_bots < 1:
        raise ValueError(f"n_bots must be positive, got {n_bots}")
    rounds = 0
    while seats**rounds < n_bots:  # integer log, free of floating-point edge cases
        rounds += 1
    return max(3, rounds + 1)


@dataclass(frozen=True, slots=True)
class _Memory:
    """What the Swiss needs from the history: meetings, seats, last starts and byes so far."""

    tables: frozenset[frozenset[str]]
    pairs: Counter[frozenset[str]]
    seat_counts: dict[str, list[int]]
    last_start: dict[str, int]
    byes: dict[str, int]


def _remember(history: Sequence[Pairing], field: tuple[str, ...], before: int) -> _Memory:
    """Count meetings per deal (rotations are one meeting), but seats per game played."""
    tables: set[frozenset[str]] = set()
    pairs: Counter[frozenset[str]] = Counter()
    seat_counts = {bot: [0] * MAX_SEATS for bot in field}
    last_start = dict.fromkeys(field, 0)
    seen: set[tuple[str, frozenset[str]]] = set()
    rounds: set[int] = set()
    played: dict[str, set[int]] = {bot: set() for bot in field}
    for p in history:
        members = frozenset(p.seats)
        for position, bot in enumerate(p.seats):
            if bot in seat_counts:
                seat_counts[bot][position] += 1
                played[bot].add(p.round)
        if p.seats and p.seats[0] in last_start:
            last_start[p.seats[0]] = max(last_start[p.seats[0]], p.round)
        if p.round < before:
            rounds.add(p.round)
        if (p.deal, members) in seen:
            continue
        seen.add((p.deal, members))
        tables.add(members)
        pairs.update(frozenset(pair) for pair in itertools.combinations(members, 2))
    # A bot that had no table in an earlier round had a bye there.
    byes = {bot: len(rounds - played[bot]) for bot in field}
    return _Memory(frozenset(tables), pairs, seat_counts, last_start, byes)


Cost = tuple[int, int]  # (repeated tables, PAIR_WEIGHT * repeated pairs + displacement)


def _add(a: Cost, b: Cost) -> Cost:
    return (a[0] + b[0], a[1] + b[1])


def _table_coster(
    players: list[str], sizes: tuple[int, ...], standings: Mapping[str, float], memory: _Memory
) -> Callable[[Sequence[str], int], Cost]:
    """Cost of putting ``members`` at table index ``t``.

    A bot may sit anywhere its score group reaches in the natural (top-down) filling for free;
    beyond that it costs the squared distance in tables, so small moves are preferred.
    """
    table_of_pos = [t for t, size in enumerate(sizes) for _ in range(size)]
    reach: dict[str, tuple[int, int]] = {}
    for _, same in itertools.groupby(enumerate(players), key=lambda e: standings.get(e[1], 0.0)):
        group = list(same)
        lo, hi = table_of_pos[group[0][0]], table_of_pos[group[-1][0]]
        for _, bot in group:
            reach[bot] = (lo, hi)

    def cost(members: Sequence[str], t: int) -> Cost:
        repeat = int(frozenset(members) in memory.tables)
        pairs = sum(memory.pairs[frozenset(p)] for p in itertools.combinations(members, 2))
        moved = sum(max(0, reach[b][0] - t, t - reach[b][1]) ** 2 for b in members)
        return (repeat, PAIR_WEIGHT * pairs + moved)

    return cost


def _local_search(
    tables: list[list[str]], cost: Callable[[Sequence[str], int], Cost], radius: int
) -> list[list[str]]:
    """Best-improvement swaps of two bots between tables at most ``radius`` apart."""
    tables = [list(t) for t in tables]
    costs = [cost(t, i) for i, t in enumerate(tables)]
    for _ in range(MAX_SWAPS):
        best: tuple[Cost, int, int, int, int] | None = None
        for i, j in itertools.combinations(range(len(tables)), 2):
            if j - i > radius:
                continue
            old = _add(costs[i], costs[j])
            for a, b in itertools.product(range(len(tables[i])), range(len(tables[j]))):
                ti = tables[i].copy()
                tj = tables[j].copy()
                ti[a], tj[b] = tj[b], ti[a]
                new = _add(cost(ti, i), cost(tj, j))
                gain = (old[0] - new[0], old[1] - new[1])
                if gain > (0, 0) and (best is None or gain > best[0]):
                    best = (gain, i, j, a, b)
        if best is None:
            break
        _, i, j, a, b = best
        tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
        costs[i], costs[j] = cost(tables[i], i), cost(tables[j], j)
    return tables


def _exact_search(
    players: list[str], sizes: tuple[int, ...], cost: Callable[[Sequence[str], int], Cost], bound: Cost
) -> list[list[str]] | None:
    """Branch and bound over partitions; returns the cheapest found below ``bound``, if any.

    The short tables (any number, at the end) are chosen first, each at its own index; then the
    full tables are built in order of their top-ranked member, which fixes each table's index
    while it is built, so partial costs are exact and prune the search.  The search stops after
    ``SEARCH_BUDGET`` table costings: small fields are searched whole, large ones as far as time allows.
    """
    full = sizes[0]
    shorts = [(index, size) for index, size in enumerate(sizes) if size != full]  # the last tables
    best: list[list[str]] | None = None
    best_cost = bound
    spent = 0

    def fill(rest: list[str], built: list[list[str]], so_far: Cost, tail: list[list[str]]) -> None:
        nonlocal best, best_cost, spent
        if so_far >= best_cost:
            return
        if not rest:
            best, best_cost = built + tail, so_far
            return
        head, others = rest[0], rest[1:]
        for mates in itertools.combinations(others, full - 1):
            if spent >= SEARCH_BUDGET:
                return
            spent += 1
            table = [head, *mates]
            left = [b for b in others if b not in mates]
            fill(left, [*built, table], _add(so_far, cost(table, len(built))), tail)

    def place_shorts(k: int, rest: list[str], so_far: Cost, tail: list[list[str]]) -> None:
        """The short tables first, each at its own index (any number of them), then the full ones."""
        nonlocal spent
        if k == len(shorts):
            fill(rest, [], so_far, tail)
            return
        index, size = shorts[k]
        for table in itertools.combinations(rest, size):
            if spent >= SEARCH_BUDGET:
                return
            spent += 1
            with_it = _add(so_far, cost(table, index))
            if with_it < best_cost:
                place_shorts(k + 1, [b for b in rest if b not in table], with_it, [*tail, list(table)])

    place_shorts(0, players, (0, 0), [])
    return best


def _total(tables: list[list[str]], cost: Callable[[Sequence[str], int], Cost]) -> Cost:
    total = (0, 0)
    for i, t in enumerate(tables):
        total = _add(total, cost(t, i))
    return total


def _group(
    players: list[str], sizes: tuple[int, ...], standings: Mapping[str, float], memory: _Memory
) -> list[list[str]]:
    """Split the ranked players into tables: near their score group, avoiding old tables."""
    cost = _table_coster(players, sizes, standings, memory)
    starts = list(itertools.accumulate(sizes, initial=0))
    tables = [players[a:b] for a, b in zip(starts, starts[1:])]
    # Neighbouring score groups first, then any two tables while a repeated table remains.
    tables = _local_search(tables, cost, radius=1)
    if _total(tables, cost)[0] > 0:
        tables = _local_search(tables, cost, radius=len(tables))
    repeats = _total(tables, cost)[0]
    if repeats > 0:
        # Swaps can stall where a grouping without the repeat exists; search for one directly.
        found = _exact_search(players, sizes, cost, bound=(repeats, 0))
        if found is not None:
            tables = found
    return tables


def _seat(members: Sequence[str], memory: _Memory, label: str) -> tuple[str, ...]:
    """Seat order: the starter is whoever started least, the rest sit where they sat least.

    Among equal starters the one whose last start is oldest goes first, so ties alternate
    instead of drifting.  Tables have at most 6 seats, so all 720 orders can be compared; the
    seeded shuffle makes the first minimum a seeded tie-break.
    """
    counts, last = memory.seat_counts, memory.last_start
    orders = list(itertools.permutations(sorted(members)))
    random.Random(label).shuffle(orders)
    return min(
        orders,
        key=lambda o: (counts[o[0]][0], last[o[0]], sum(counts[b][s] for s, b in enumerate(o))),
    )


def swiss_round(
    bots: Sequence[str],
    seats: int,
    round: int,
    standings: Mapping[str, float],
    history: Sequence[Pairing],
    *,
    seed: str,
    min_seats: int | None = None,
    rotations: bool = False,
    fill: bool = True,
) -> SwissRound:
    """Pair one Swiss round of multiplayer tables.

    ``standings`` are points so far (higher is better; missing bots count 0).  ``history`` is
    every earlier Pairing; byes are inferred from the rounds in it a bot did not play.  Tables
    all have ``seats`` seats, unless ``min_seats`` lets smaller tables seat bots that would
    otherwise sit out (:func:`table_sizes`).
    """
    field = canonical_field(bots)
    sizes = table_sizes(len(field), seats, min_seats, fill=fill)
    if round < 1:
        raise ValueError(f"round must be at least 1, got {round}")
    memory = _remember(history, field, before=round)

    # Seeded order first, then a stable sort by points: equal scores are ordered by the seed.
    order = sorted(
        shuffled(field, f"{seed}:swiss:{round}:ties"),
        key=lambda b: -standings.get(b, 0.0),
    )
    rank = {bot: i for i, bot in enumerate(order)}
    # Fewest byes first, so no bot has a second bye before every bot had one; then lowest standing.
    n_byes = len(field) - sum(sizes)
    byes = tuple(sorted(field, key=lambda b: (memory.byes[b], -rank[b]))[:n_byes])
    players = [b for b in order if b not in byes]

    tables = _group(players, sizes, standings, memory)
    pairings: list[Pairing] = []
    for table, members in enumerate(tables, start=1):
        drawn = _seat(members, memory, f"{seed}:swiss:{round}:seats:{table}")
        deal = f"{seed}:swiss:r{round}-t{table}"
        turns = range(len(drawn)) if rotations else (0,)
        pairings.extend(
            Pairing(
                id=f"r{round}-t{table}-s{r}",
                round=round,
                table=table,
                seats=rotate(drawn, r),
                deal=deal,
                rotation=r,
            )
            for r in turns
        )
    return SwissRound(round=round, pairings=tuple(pairings), byes=byes)


def swiss_size(n_bots: int, seats: int, *, rounds: int | None = None, min_seats: int | None = None,
               rotations: bool = False, fill: bool = True) -> int:
    """The matches (pairings) of a Swiss of ``rounds`` rounds (default :func:`swiss_rounds_needed`)."""
    sizes = table_sizes(n_bots, seats, min_seats, fill=fill)
    per_round = sum(sizes) if rotations else len(sizes)
    return per_round * (swiss_rounds_needed(n_bots, seats) if rounds is None else rounds)


def _min_seats_fit(min_seats: int, reading: Reading) -> None:
    game, seats = reading.game, reading.values["seats"]
    if min_seats > seats or min_seats < game.min_players:
        raise FieldError("min_seats", f"must be from {game.min_players} to seats ({seats})")


class Swiss(Format):
    """A multiplayer Swiss of ``rounds`` rounds (by default enough for the field), each paired on
    the points of the rounds before (see :func:`swiss_round`)."""

    name = "swiss"
    fields = (
        Field("rounds", Whole(1, MAX_ROUNDS), "rounds; by default enough for the field; raise it to play more",
              example="4", grows=lambda value, spec: value or swiss_rounds_needed(len(spec["bots"]), spec["seats"])),
        Field("min_seats", Whole(MIN_SEATS, MAX_SEATS), "tables may seat this few, so that fewer bots sit out",
              example="3", check=_min_seats_fit,
              compare=lambda value, game, seats: None if value == seats else value),  # equal to seats: unset
    )
    instead = {"games": "a swiss plays one deal per table per round"}

    @classmethod
    def seatings(cls, values: Mapping[str, Any]) -> set[int]:
        return {values["seats"], values["min_seats"] or values["seats"]}

    def __init__(self, spec: TournamentSpec, schedule: int = SCHEDULE) -> None:
        super().__init__(spec, schedule)
        self.min_seats: int | None = spec.options["min_seats"]
        self.count: int = spec.options["rounds"] or swiss_rounds_needed(len(self.bots), spec.seats)
        self.fill = schedule >= 2  # rule 2 seats as many bots as min_seats allows

    @property
    def round_count(self) -> int:
        return self.count

    def size(self) -> int:
        return swiss_size(len(self.bots), self.spec.seats, rounds=self.count, min_seats=self.min_seats,
                          rotations=self.spec.rotations, fill=self.fill)

    def rounds(self, results: Callable[[], Results]) -> Iterator[Round]:
        return self._rounds(results, self.count)

    def blocks(self, results: Callable[[], Results]) -> Iterator[Round]:
        """Round after round past ``rounds`` (the pairing of a round never depends on how many follow)."""
        return self._rounds(results, MAX_ROUNDS)

    def _rounds(self, results: Callable[[], Results], count: int) -> Iterator[Round]:
        history: list[Pairing] = []
        for number in range(1, count + 1):
            standings = self.standings(history, results())
            plan = swiss_round(self.bots, self.spec.seats, number, standings, history, seed=self.spec.seed,
                               min_seats=self.min_seats, rotations=self.spec.rotations, fill=self.fill)
            yield Round(number, plan.pairings)
            history.extend(plan.pairings)

    def standings(self, pairings: Iterable[Pairing], results: Results) -> dict[str, Fraction]:
        """The points it pairs on; a tournament begun under rule 1 keeps that rule's scoring."""
        first_rule = self.schedule < 2
        return points(self.bots, pairings, results, per_table=not first_rule, count_empty=first_rule)


FORMAT = Swiss
