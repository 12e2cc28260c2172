"""JSON lines in and out, with a stable byte-for-byte encoding."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from arena.errors import ArenaError


def dumps(obj: Any) -> bytes:
    """Compact, key-order-preserving JSON; the same object always gives the same bytes."""
    return orjson.dumps(obj)


def write_jsonl(target: Path | BinaryIO, records: Iterable[dict[str, Any]]) -> tuple[int, list[int]]:
    """Write records one per line to a file (or an open binary stream, such as stdout's);
    returns how many, and game wins per seat."""
    if not isinstance(target, (str, Path)):
        return _write_records(target, records)
    with open(target, "wb") as fh:
        return _write_records(fh, records)


def write_records(out: Path, records: Iterable[dict[str, Any]]) -> tuple[int, list[int]]:
    """:func:`write_jsonl` to the file ``out``, or to stdout for ``-``; a file that cannot be
    written is an error naming it."""
    try:
        return write_jsonl(sys.stdout.buffer if str(out) == "-" else out, records)
    except OSError as exc:
        raise ArenaError(f"cannot write {out}: {exc.strerror or exc}") from None


def _write_records(fh: BinaryIO, records: Iterable[dict[str, Any]]) -> tuple[int, list[int]]:
    count = 0
    wins: list[int] = []
    for record in records:
        fh.write(dumps(record) + b"\n")
        count += 1
        winner = record["result"]["winner"]
        seats = len(record["seats"])
        if len(wins) < seats:
            wins.extend([0] * (seats - len(wins)))
        if winner is not None:
            wins[winner] += 1
    fh.flush()
    return count, wins


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                yield orjson.loads(line)
