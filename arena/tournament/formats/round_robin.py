"""The round-robin: every combination of ``seats`` bots, each played under every cyclic rotation
of its seats with one shared deal (duplicate deals cancel the luck of the cards and of the seat).

No table depends on another's result, so the whole schedule is one round, made table by table
as it is played (:func:`iter_round_robin`).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator, Sequence

from arena.core.pairing import Pairing
from arena.tournament.fields import Field, Whole
from arena.tournament.formats.base import Format, Results, Round, canonical_field, check_seats, rotate, shuffled

MAX_GAMES = 10_000  # a bound that keeps a typo from promising a run of centuries


def round_robin(
    bots: Sequence[str],
    seats: int,
    *,
    games: int = 1,
    rotations: bool = True,
    seed: str,
) -> list[Pairing]:
    """Every ``seats``-subset of the field, under every rotation, ``games`` times.

    With ``rotations`` each repetition draws a fresh seat order per table (so neighbours change
    between repetitions) and plays all its rotations on one deal.  Without, one game per table
    and repetition is played, rotating by the repetition number, so ``seats`` repetitions still
    give every bot every seat.  Listed repetition by repetition; :func:`iter_round_robin` gives
    the same pairings table by table, without a list.
    """
    combos = _combos(bots, seats, games, seed)
    return [p for game in range(1, games + 1) for table, combo in enumerate(combos, start=1)
            for p in table_pairings(combo, game, table, seats, rotations, seed)]


def iter_round_robin(
    bots: Sequence[str],
    seats: int,
    *,
    games: int = 1,
    rotations: bool = True,
    seed: str,
) -> Iterator[Pairing]:
    """The pairings of :func:`round_robin`, table by table (every repetition of a table in a
    row, so its bots can stay warm), made as they are consumed: a long tournament's plan is
    never held in memory."""
    combos = _combos(bots, seats, games, seed)
    for table, combo in enumerate(combos, start=1):
        for game in range(1, games + 1):
            yield from table_pairings(combo, game, table, seats, rotations, seed)


def _combos(bots: Sequence[str], seats: int, games: int, seed: str) -> list[tuple[str, ...]]:
    check_seats(seats)
    field = canonical_field(bots)
    if seats > len(field):
        raise ValueError(f"seats ({seats}) cannot exceed the number of bots ({len(field)})")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    combos = list(itertools.combinations(field, seats))
    random.Random(f"{seed}:round_robin:order").shuffle(combos)
    return combos


def table_pairings(combo: tuple[str, ...], game: int, table: int, seats: int, rotations: bool,
                    seed: str, label: str = "round_robin") -> list[Pairing]:
    """The pairings of one table in one repetition: its rotations, on one deal.  ``label`` names
    the format in the seeds of its seat orders and deals (a gauntlet's tables draw their own)."""
    if rotations:
        order = shuffled(combo, f"{seed}:{label}:seats:{game}:{table}")
        turns: Sequence[int] = range(seats)
    else:
        # One fixed order per table, so rotating by repetition covers every seat.
        order = shuffled(combo, f"{seed}:{label}:seats:{table}")
        turns = ((game - 1) % seats,)
    deal = f"{seed}:{label}:r{game}-t{table}"
    return [Pairing(id=f"r{game}-t{table}-s{r}", round=game, table=table, seats=rotate(order, r),
                    deal=deal, rotation=r) for r in turns]


def repetition_blocks(tables: Sequence[tuple[str, ...]], seats: int, rotations: bool, seed: str,
                      label: str = "round_robin") -> Iterator[Round]:
    """The blocks a stop rule may end after: a repetition of every table at a time, on and on (up
    to the bound of ``games``).  Without rotations a table rotates once a repetition, so a block
    is ``seats`` repetitions: every bot in every seat."""
    step = 1 if rotations else seats
    for number, first in enumerate(range(1, MAX_GAMES + 1, step), start=1):
        yield Round(number, [p for game in range(first, min(first + step, MAX_GAMES + 1))
                             for table, combo in enumerate(tables, start=1)
                             for p in table_pairings(combo, game, table, seats, rotations, seed, label)])


def round_robin_size(n_bots: int, seats: int, *, games: int = 1, rotations: bool = True) -> int:
    """The matches (pairings) of :func:`round_robin` with a field of ``n_bots``."""
    check_seats(seats)
    if not seats <= n_bots:
        raise ValueError(f"seats ({seats}) cannot exceed the number of bots ({n_bots})")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    return math.comb(n_bots, seats) * games * (seats if rotations else 1)


class RoundRobin(Format):
    """Every table of ``seats`` bots the field makes, ``games`` times (see :func:`round_robin`), in one round."""

    name = "round-robin"
    fields = (Field("games", Whole(1, MAX_GAMES), "matches per table and seat rotation; raise it to play more",
                    default=1, grows=lambda value, spec: value),)
    instead = {"rounds": "round-robin uses games", "min_seats": "a round-robin table always has seats bots"}

    @property
    def games(self) -> int:
        return self.spec.options["games"]

    @property
    def round_count(self) -> int:
        return 1

    def size(self) -> int:
        return round_robin_size(len(self.bots), self.spec.seats, games=self.games, rotations=self.spec.rotations)

    def rounds(self, results: Callable[[], Results]) -> Iterator[Round]:
        yield Round(1, iter_round_robin(self.bots, self.spec.seats, games=self.games,
                                        rotations=self.spec.rotations, seed=self.spec.seed))

    def blocks(self, results: Callable[[], Results]) -> Iterator[Round]:
        """The pairings of :meth:`rounds`, a repetition of every table at a time instead of
        table by table (:func:`repetition_blocks`)."""
        return repetition_blocks(_combos(self.bots, self.spec.seats, 1, self.spec.seed), self.spec.seats,
                                 self.spec.rotations, self.spec.seed)

FORMAT = RoundRobin
