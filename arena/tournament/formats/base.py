"""What the tournament formats share: the table sizes a harness can host, a field in canonical
order, seat rotations and seeded shuffles.

Every schedule is a pure function of its arguments and a string seed (``random.Random(f"{seed}:...")``,
hashed with SHA-512, so stable across runs), which lets a resumed tournament regenerate the same
pairings and skip the ids it has already stored.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

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
