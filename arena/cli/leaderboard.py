"""The ratings table as the CLI prints it: aligned text, csv, json or markdown."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from arena.cli.output import render

if TYPE_CHECKING:
    from arena.ratings import Row


COLUMNS = ("rank", "bot", "score", "mu", "sigma", "games", "wins", "mean_place", "faults")
NUMBER_COLUMNS = frozenset({"rank", "score", "mu", "sigma", "games", "wins", "mean_place"})


def _faults_text(faults: dict[str, int]) -> str:
    # "kind:count" separated by spaces: no commas, so it needs no quoting and splits easily.
    return " ".join(f"{kind}:{n}" for kind, n in faults.items()) or "-"


def _cells(row: Row, digits: int | None) -> list[str]:
    def num(x: float) -> str:
        return repr(x) if digits is None else f"{x:.{digits}f}"

    return [str(row.rank), row.bot, num(row.score), num(row.mu), num(row.sigma), str(row.games),
            str(row.wins), num(row.mean_place), _faults_text(row.faults)]


def format_table(rows: list[Row], fmt: str = "table") -> str:
    """Render a leaderboard as ``table`` (aligned text), ``csv``, ``json`` or ``markdown``; csv
    keeps every digit, the text formats two."""
    cells = [_cells(r, None if fmt == "csv" else 2) for r in rows]
    return render(COLUMNS, cells, fmt, records=[asdict(r) for r in rows], right=NUMBER_COLUMNS)
