"""Measure what starting one sandboxed bot costs: wall time to its first message, and CPU.

    python benchmarks/sandbox_startup.py [--mode strict|none] [--starts 20]

Starts ``tests/bots/sandbox_echo.py`` ``--starts`` times through ``arena.sandbox.start_bot``, as a
referee does, and prints the median and the least wall time from ``start_bot`` to the bot's first
message over its socket, and the median CPU of the processes the start ran that were reaped by
the time the bot was stopped (``RUSAGE_CHILDREN``; under bwrap the bot's own CPU is mostly not
among them: the kernel kills it with its namespace).  Run it on two checkouts in alternation to
compare them.  A benchmark, not a test: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import zmq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.sandbox import start_bot  # noqa: E402

ECHO = ROOT / "tests" / "bots" / "sandbox_echo.py"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_start(context: zmq.Context, mode: str) -> tuple[float, float]:
    """Seconds to the bot's first message, and CPU seconds of what the start ran."""
    base = Path(tempfile.mkdtemp(prefix="arena-startup-"))
    base.chmod(0o755)  # the bot's uid must reach its socket's folder
    endpoint_dir = base / "endpoint"
    endpoint_dir.mkdir()
    sock = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    address = f"ipc://{endpoint_dir}/bot.sock"
    sock.bind(address)
    try:
        cpu, t0 = children_cpu(), time.perf_counter()
        bot = start_bot([os.path.realpath(sys.executable), str(ECHO), address], expose=[ECHO],
                        endpoint_dir=endpoint_dir, mode=mode, name="echo")  # type: ignore[arg-type]
        try:
            if not sock.poll(30_000):
                raise SystemExit(f"the bot sent nothing in 30 s: {bot.stderr_text()}")
            elapsed = time.perf_counter() - t0
        finally:
            bot.stop(grace=0)
        return elapsed, children_cpu() - cpu
    finally:
        sock.close()
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="strict", choices=["strict", "none"])
    parser.add_argument("--starts", type=int, default=20)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the sandbox's warn-once lines
    context = zmq.Context.instance()
    walls, cpus = zip(*(one_start(context, args.mode) for _ in range(args.starts)))
    print(f"{args.mode}: first message after {statistics.median(walls) * 1000:.0f} ms median "
          f"({min(walls) * 1000:.0f} least) of {args.starts} starts; "
          f"CPU of the start's reaped processes {statistics.median(cpus) * 1000:.1f} ms median")


if __name__ == "__main__":
    main()
