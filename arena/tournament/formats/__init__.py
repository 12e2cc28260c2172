"""Tournament formats: which tables to play, in which seat order, with which deal, and how the
results score.

A format only names games (:class:`~arena.core.pairing.Pairing`); an executor plays them.  Each
is one module here exporting its :class:`~arena.tournament.formats.base.Format` as ``FORMAT``;
the registry finds them, so a new format is a new module and nothing else names it.

* ``round_robin``: every combination of ``seats`` bots under every rotation of its seats.
* ``swiss``: a multiplayer Swiss, paired round by round on the points so far.
* ``base``: the interface, and what the formats share.
"""

from __future__ import annotations

import importlib
import pkgutil

from arena.core.pairing import Pairing
from arena.errors import ConfigError
from arena.tournament.formats.base import (
    MAX_SEATS,
    MIN_SEATS,
    SCHEDULE,
    Format,
    Played,
    Results,
    Round,
    place_points,
    points,
)
from arena.tournament.formats.round_robin import iter_round_robin, round_robin, round_robin_size
from arena.tournament.formats.swiss import (
    SwissRound,
    bye_count,
    swiss_round,
    swiss_rounds_needed,
    swiss_size,
    table_count,
    table_sizes,
)


def _discover() -> dict[str, type[Format]]:
    """Every format module here (one that exports ``FORMAT``), by name, in the order of their
    names: a new format is a new module, and nothing else to register."""
    found: dict[str, type[Format]] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name.replace("_", "-")):
        entry = getattr(importlib.import_module(f"{__name__}.{module.name}"), "FORMAT", None)
        if isinstance(entry, type) and issubclass(entry, Format):
            if module.name != entry.name.replace("-", "_"):
                raise RuntimeError(f"format {entry.name!r} lives in {module.name}.py: a format's module is its "
                                   "name with '_' for '-'")
            found[entry.name] = entry
    return found


REGISTRY: dict[str, type[Format]] = _discover()


def get_format(name: str) -> type[Format]:
    """The format called ``name``, or a :class:`ConfigError` listing the formats."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown format {name!r} (formats: {', '.join(REGISTRY)})") from None


__all__ = ["MAX_SEATS", "MIN_SEATS", "REGISTRY", "SCHEDULE", "Format", "Pairing", "Played", "Results", "Round",
           "SwissRound", "bye_count", "get_format", "iter_round_robin", "place_points", "points", "round_robin",
           "round_robin_size", "swiss_round", "swiss_rounds_needed", "swiss_size", "table_count", "table_sizes"]
