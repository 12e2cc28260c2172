"""The interface of a tournament format (:class:`Format`), and what the formats share: the table
sizes the harness can host, the field in canonical order, seat rotations, seeded shuffles and
the points of a game.

Every schedule is a pure function of its arguments and a string seed (``random.Random(f"{seed}:...")``,
hashed with SHA-512, so stable across runs), which lets a resumed tournament regenerate the same
pairings and skip the ids it has already stored.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from arena.core.pairing import Pairing
from arena.games import GameResult
from arena.tournament.fields import Field
from arena.tournament.spec import TournamentSpec

MIN_SEATS = 2
MAX_SEATS = 6


def check_seats(seats: int) -> None:
    """Tables outside 2-6 seats are not games the harness can host."""
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"seats must be between {MIN_SEATS} and {MAX_SEATS}, got {seats}")


def canonical_field(bots: Sequence[str]) -> tuple[str, ...]:
    """The field in canonical (sorted) order, so a reordered config gives the same schedule."""
    counts = Counter(bots)
    duplicates = sorted(name for name, n in counts.items() if n > 1)
    if duplicates:
        raise ValueError(f"bots must be unique; duplicated: {', '.join(duplicates)}")
    return tuple(sorted(bots))


def rotate(order: tuple[str, ...], r: int) -> tuple[str, ...]:
    """Rotation ``r`` puts ``order[r]`` in seat 0 and keeps everyone's neighbours."""
    return order[r:] + order[:r]


def shuffled(items: Sequence[str], label: str) -> tuple[str, ...]:
    """A seeded shuffle; the label names what is shuffled, so draws never share a stream."""
    out = list(items)
    random.Random(label).shuffle(out)
    return tuple(out)


# --------------------------------------------------------------------------- the interface

# The rules a new tournament is stored under (its spec's ``schedule``), so that one begun under
# an earlier rule resumes under it; each format says what the numbers mean to it (the Swiss:
# :mod:`arena.tournament.formats.swiss`).  A tournament stored before the rules had a number has 1.
SCHEDULE = 2


@dataclass(frozen=True, slots=True)
class Round:
    """One round of a schedule: its number (from 1) and its pairings, made as they are consumed."""

    number: int
    pairings: Iterable[Pairing]


@dataclass(frozen=True, slots=True)
class Played:
    """What is stored of a pairing's match: who sat where, and the results of its games so far."""

    seats: tuple[str, ...]
    games: tuple[GameResult, ...] = ()


Results = Callable[[Pairing], Played]  # the stored part of a pairing's match, as read at one moment


class Format(ABC):
    """A tournament format bound to one tournament: how many matches it plays, which, and how it
    scores them.

    The runner plays :meth:`rounds` one at a time and asks for the next only once the round
    before is played in full and stored, so a format may pair a round on the results of the
    rounds before it.  Every schedule is a pure function of the tournament's definition and, for
    a later round, of those results: a resumed tournament makes the same pairings again and
    skips what is stored.  A format module exports its class as ``FORMAT``; the registry
    (:mod:`arena.tournament.formats`) finds it by the module's name.
    """

    name: ClassVar[str]  # as a tournament file's ``format`` names it
    # Its own tournament-file fields, read into ``spec.options`` (arena.tournament.file): a file of
    # another format may not set them, except to their defaults.
    fields: ClassVar[tuple[Field, ...]] = ()
    # Why it takes no field of another format's, by that field's name (the error says so).
    instead: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def seatings(cls, values: Mapping[str, Any]) -> set[int]:
        """The table sizes it may seat, given a file's values (``seats``, and its own fields)."""
        return {values["seats"]}

    def __init__(self, spec: TournamentSpec, schedule: int = SCHEDULE) -> None:
        self.spec = spec
        self.schedule = schedule  # the rules the tournament began under (:data:`SCHEDULE`)
        self.bots = [bot.name for bot in spec.bots]

    @property
    @abstractmethod
    def round_count(self) -> int:
        """The rounds the schedule plays."""

    @abstractmethod
    def size(self) -> int:
        """The matches the whole schedule plays (pairings, over every round)."""

    @abstractmethod
    def rounds(self, results: Callable[[], Results]) -> Iterator[Round]:
        """The schedule, round by round; ``results()`` reads what is stored now."""

    def blocks(self, results: Callable[[], Results]) -> Iterator[Round]:
        """The schedule in blocks a stop rule may end after (``[stop]``): each keeps the seats
        balanced (every bot as often in every seat, each table under all its rotations), and the
        blocks go on as long as the format can make more.  By default its rounds."""
        return self.rounds(results)

    def standings(self, pairings: Iterable[Pairing], results: Results) -> dict[str, Fraction]:
        """Points of the ``pairings`` played so far (see :func:`points`)."""
        return points(self.bots, pairings, results)

    def incomplete(self, round: Round) -> str | None:
        """What to tell when ``round`` ended with a failed match, so that the rounds after it are
        not paired (they would be paired on part of its results); ``None`` when none follows."""
        last = self.round_count
        if round.number >= last:
            return None
        later = f"round {last} was" if round.number + 1 == last else f"rounds {round.number + 1}-{last} were"
        return (f"{self.name} round {round.number} is incomplete, so {later} not paired; "
                "run the same command again to finish it")


# --------------------------------------------------------------------------- scoring


def place_points(places: Iterable[int]) -> list[Fraction]:
    """Points of one game by seat: 1 for first place down to 0 for last, evenly spaced, as exact
    fractions.  Seats tied at a place share the points of the places they fill (two tied for
    2nd of 3 fill 2nd and 3rd: a quarter each), so a game always hands out the same points in
    all, and two bots that both forfeited never score like a bot that came 2nd."""
    places = list(places)
    n = len(places)
    tied = Counter(places)
    # Tied at place p, k seats fill places p .. p+k-1: their mean is p + (k-1)/2.
    return [(n - place - Fraction(tied[place] - 1, 2)) / (n - 1) for place in places]


def points(bots: Sequence[str], pairings: Iterable[Pairing], results: Results, *, per_table: bool = True,
           count_empty: bool = False) -> dict[str, Fraction]:
    """Points so far: each round at most 1 point a bot, its mean at its table over the table's
    matches (its seat rotations) and each match's games, of :func:`place_points`.

    - The mean over games, so that a Powder Keg match that runs to more games is worth no more
      than a short one; over rotations, so that a full table (3 rotations of 3 seats) is worth
      no more than a short one of ``min_seats`` (2 rotations of 2): a round gives 0.5 a bot on
      average at any table.
    - A game where no bot played (every seat forfeited) gives nobody anything, as a bye gives
      nothing.

    Exact fractions: equal scores must compare equal (as floats 0.2 + 0.4 != 0.0 + 0.6).  The
    first rule of the Swiss: ``per_table=False`` (each match worth its own mean) and
    ``count_empty=True`` (a game nobody played shares its points too)."""
    pairings = list(pairings)
    scores: dict[str, Fraction] = {bot: Fraction(0) for bot in bots}
    matches_at = Counter((p.round, p.table) for p in pairings)
    for pairing in pairings:
        played = results(pairing)
        per_match = matches_at[(pairing.round, pairing.table)] if per_table else 1
        share = Fraction(1, per_match * max(len(played.games), 1))
        for result in played.games:
            if not count_empty and len(result.forfeits) == len(result.places):
                continue  # nobody played
            for seat, earned in enumerate(place_points(result.places)):
                scores[played.seats[seat]] += earned * share
    return scores
