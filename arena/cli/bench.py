"""``arena bench``: the benchmarks, as ratios to baselines measured in the same run."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from arena.cli.options import Sandbox, sandbox_mode
from arena.cli.output import echo_report, note
from arena.errors import UsageError


def bench(
    quick: Annotated[bool, typer.Option(help="Fewer repetitions and a shorter memory run (a smoke check).")] = False,
    sandbox: Sandbox = "auto",
    memory_games: Annotated[int, typer.Option(min=200, max=10_000_000, help="Games of the long run of the memory benchmark.")] = 5000,
    part: Annotated[Optional[list[str]], typer.Option(help="Only these parts: engines, pipe, referee, cpu, floor, harness, memory (repeatable).")] = None,
    pin: Annotated[bool, typer.Option(help="Run the round trips on one CPU, as tournament workers do (--no-pin: let the OS place them).")] = True,
    json_out: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Measure engine speed, the pipe baseline, the referee's round trip, CPU per decision and
    its in-process floor, games/s with 1 and 2 workers, and the coordinator's memory; print
    ratios from the same run.

    Example: arena bench --quick
    """
    from arena.bench import PARTS, run_all

    parts = tuple(part or PARTS)
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise UsageError(f"unknown --part {sorted(unknown)[0]!r} (parts: {', '.join(PARTS)})")
    report = run_all(quick=quick, sandbox_mode=sandbox_mode(sandbox), memory_games=memory_games, parts=parts, pin=pin,
                     echo=None if json_out else (lambda line: note(f"... {line}")))
    echo_report(report, json_out)
