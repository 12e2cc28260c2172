"""What the CLI prints, and where: data and reports on stdout, messages on stderr.

One renderer for every listing (ratings, games, bots, tournaments), so that ``--format
table|csv|json|markdown`` means the same thing on each of them.  A listing is its column names,
its rows as text cells, and its JSON records (the full data, not the text cells: JSON is for
programs, and they want numbers as numbers).  With csv, json or markdown stdout holds the data
alone: whatever else a command says goes to stderr (:func:`note`).  Every JSON a command prints
is indented alike (:func:`echo_json`), and text that may hold what a bot wrote is shown with
terminal control characters escaped (:func:`echo_lines`).

Errors are not printed here: a command raises them, and :func:`arena.cli.root.main` turns each
into one line and an exit status.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import orjson
import typer

from arena.core.terminal import safe
from arena.errors import UsageError

FORMATS = ("table", "csv", "json", "markdown")


def render(columns: Sequence[str], rows: Sequence[Sequence[str]], fmt: str,
           records: Sequence[Mapping[str, Any]] | None = None, right: frozenset[str] = frozenset()) -> str:
    """``rows`` in ``fmt``; ``right`` names the columns of numbers (right-aligned in a table and
    in markdown).  ``records`` are printed for json (the rows as objects if not given)."""
    if fmt == "json":
        data = list(records) if records is not None else [dict(zip(columns, row)) for row in rows]
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return out.getvalue()
    if fmt == "markdown":
        lines = ["| " + " | ".join(columns) + " |",
                 "|" + "|".join("---:" if c in right else "---" for c in columns) + "|"]
        # A "|" inside a cell (say, in a bot name) would split the column.
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    if fmt == "table":
        grid = [list(columns)] + [list(row) for row in rows]
        widths = [max(len(line[i]) for line in grid) for i in range(len(columns))]
        return "".join(
            "  ".join(cell.rjust(w) if c in right else cell.ljust(w)
                      for c, cell, w in zip(columns, line, widths)).rstrip() + "\n"
            for line in grid
        )
    raise UsageError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")


class Report(Protocol):
    """A command's result that reads as text or as JSON (a match summary, a check, a benchmark)."""

    def lines(self) -> Iterable[str]: ...

    def to_json(self) -> Any: ...


def echo_json(data: object) -> None:
    """JSON on stdout, indented as every --json and --format json output is."""
    typer.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())


def echo_lines(lines: Iterable[str]) -> None:
    """Text on stdout, line by line, with whatever could steer a terminal escaped."""
    for line in lines:
        typer.echo(safe(line))


def echo_report(report: Report, as_json: bool) -> None:
    """A report on stdout: its JSON with --json, else its lines."""
    if as_json:
        echo_json(report.to_json())
    else:
        echo_lines(report.lines())


def echo_text(text: str) -> None:
    """Rendered text (a table, a document) on stdout, ending in one newline."""
    typer.echo(text.rstrip("\n"))  # echo adds the last newline


def note(text: str) -> None:
    """A message on stderr: beside the data, never in it."""
    typer.echo(text, err=True)


def echo_listing(columns: Sequence[str], rows: Sequence[Sequence[str]], fmt: str, records: Sequence[Mapping[str, Any]],
                 hint: str, right: frozenset[str] = frozenset()) -> None:
    """Print a listing in ``fmt`` (see :func:`render`).  With nothing to list a table says ``hint``;
    a data format prints its empty form on stdout, so a script reads it as usual, and the hint
    on stderr."""
    if not rows and fmt == "table":
        typer.echo(hint)
        return
    echo_text(render(columns, rows, fmt, records, right))
    if not rows:
        note(hint)
