"""The gauntlet: one candidate (or several) against a fixed pool, the format authors use most
(cutechess's and fastchess's ``-tournament gauntlet``): is my new version better than the bots
I already have?

Every table seats all the candidates and ``seats - len(candidates)`` bots of the pool, one table
for each such choice of pool bots, and each table is played under every cyclic rotation of its
seats with one shared deal, so every bot sits in every seat equally often and the candidates
meet the same cards.  Pool bots never play each other alone: no match is spent on what is
already known.  No table depends on another's result: one round.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arena.core.pairing import Pairing
from arena.tournament.fields import Field, FieldError, Reading, Whole, Words
from arena.tournament.formats.base import Format, Results, Round, canonical_field, check_seats
from arena.tournament.formats.round_robin import MAX_GAMES, table_pairings, repetition_blocks

LABEL = "gauntlet"  # in the seeds of its seat orders and deals


def gauntlet(candidates: Sequence[str], pool: Sequence[str], seats: int, *, games: int = 1, rotations: bool = True,
             seed: str) -> Iterator[Pairing]:
    """The pairings, table by table (each table's repetitions in a row, so its bots stay warm);
    a table's repetition is a round-robin table's, seeded as a gauntlet's."""
    for table, bots in enumerate(_tables(candidates, pool, seats, seed), start=1):
        for game in range(1, games + 1):
            yield from table_pairings(bots, game, table, seats, rotations, seed, LABEL)


def _tables(candidates: Sequence[str], pool: Sequence[str], seats: int, seed: str) -> list[tuple[str, ...]]:
    check_seats(seats)
    field = canonical_field([*candidates, *pool])  # refuses a bot named twice
    others = seats - len(candidates)
    if others < 1 or others > len(pool):
        raise ValueError(f"a gauntlet table of {seats} seats holds {len(candidates)} candidate(s) and needs 1 to "
                         f"{len(pool)} pool bots beside them")
    chosen = sorted(set(field) - set(candidates))
    tables = [tuple(sorted(candidates)) + combo for combo in itertools.combinations(chosen, others)]
    random.Random(f"{seed}:gauntlet:order").shuffle(tables)
    return tables


def gauntlet_size(candidates: int, pool: int, seats: int, *, games: int = 1, rotations: bool = True) -> int:
    """The matches (pairings) :func:`gauntlet` plays."""
    return math.comb(pool, seats - candidates) * games * (seats if rotations else 1)


def _candidates_fit(value: tuple[str, ...], reading: Reading) -> None:
    """Candidates are bots of the file, once each, with room beside them for the pool."""
    names = [bot.name for bot in reading.values["bots"]]
    for name in value:
        if name not in names:
            raise FieldError("candidates", f"{name!r} is not one of the bots ({', '.join(names)})")
    if len(set(value)) != len(value):
        raise FieldError("candidates", "names a bot twice")
    if not value:
        raise FieldError("candidates", "a gauntlet needs at least one candidate")
    seats, pool = reading.values["seats"], len(names) - len(value)
    if pool < 1:
        raise FieldError("candidates", "every bot is a candidate: leave at least one bot in the pool")
    if not 1 <= seats - len(value) <= pool:
        raise FieldError("seats", f"a table seats the {len(value)} candidate(s) and 1 to {pool} pool bots: "
                         f"{len(value) + 1} to {len(value) + pool} seats, not {seats}")


def _required(reading: Reading) -> Any:
    raise FieldError("candidates", 'is required in a gauntlet: the bots under test, e.g. candidates = ["mine"]')


def _compared(value: Any, game: Any, seats: Any) -> Any:
    return sorted(value) if value else []  # unset in the other formats, stored before it existed


class Gauntlet(Format):
    """The ``candidates`` against the rest of the bots, the pool (see :func:`gauntlet`), in one round."""

    name = "gauntlet"
    fields = (
        Field("candidates", Words("bot names"), "the bots under test; every other bot is the pool they meet",
              fill=_required, check=_candidates_fit, compare=_compared, example='["mine"]', stored_when_set=True),
        Field("games", Whole(1, MAX_GAMES), "matches per table and seat rotation", default=1,
              grows=lambda value, spec: value),
    )
    instead = {"rounds": "a gauntlet plays every table once per game", "min_seats": "a gauntlet table is always full"}

    @property
    def candidates(self) -> tuple[str, ...]:
        return tuple(self.spec.options["candidates"])

    @property
    def pool(self) -> list[str]:
        return [bot for bot in self.bots if bot not in self.candidates]

    @property
    def round_count(self) -> int:
        return 1

    def size(self) -> int:
        return gauntlet_size(len(self.candidates), len(self.pool), self.spec.seats, games=self.spec.options["games"],
                             rotations=self.spec.rotations)

    def rounds(self, results: Callable[[], Results]) -> Iterator[Round]:
        yield Round(1, gauntlet(self.candidates, self.pool, self.spec.seats, games=self.spec.options["games"],
                                rotations=self.spec.rotations, seed=self.spec.seed))

    def blocks(self, results: Callable[[], Results]) -> Iterator[Round]:
        """A repetition of every table at a time, as long as a stop rule wants (``max_games``)."""
        return repetition_blocks(_tables(self.candidates, self.pool, self.spec.seats, self.spec.seed),
                                 self.spec.seats, self.spec.rotations, self.spec.seed, LABEL)


FORMAT = Gauntlet
