"""The referee's memory at a table of attackers, and what the attackers cost the other bots.

    python benchmarks/referee_memory.py --sandbox strict
    python benchmarks/referee_memory.py --only multipart --seats 2 --cap-mb 300   # on an older referee

Each table plays 6-seat Reactor matches (default limits) in a fresh process, whose peak resident
memory is the referee's (``ru_maxrss``: it runs nothing else), and so is the most descriptors it
held at once (``/proc/self/fd``, looked at every 5 ms).  The attackers
(``tests/bots/attack.py``) answer their first decision and then send, without end unless
``--cap-mb``: one message of countless parts, 8 MiB frames, or floods of small frames; or open
5,000 connections before their hello.  A quiet table of random bots is the reference; and a table
of one attacker of each kind and random bots in the other seats shows what the attacks cost the random bots: their
decision time as the referee charged it (the ``ms`` of each decision in the records), against
the same bots' at the quiet table.  Written against the referee's public API only, so that it
measures an older referee too (run it from that one's checkout, with ``--cap-mb``: an older
referee kept everything it was sent).
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import resource
import os
import statistics
import sys
import threading
from pathlib import Path
from typing import Any

from arena.games import GameConfig, get_game
from arena.referee import BotSpec, MatchPlan, Referee, RefereeConfig, bot_spec

ATTACK = Path(__file__).resolve().parent.parent / "tests" / "bots" / "attack.py"
RANDOM = Path(__file__).resolve().parent.parent / "bots" / "random_bot.py"
MODES = ("multipart", "bigframes", "smallflood", "connections")


def _seat(name: str, cap_mb: int | None, index: int) -> BotSpec:
    if name == "random":
        return bot_spec(str(RANDOM), f"random{index}")
    extra = () if cap_mb is None else (str(cap_mb),)
    return BotSpec(f"{name}{index}", (sys.executable, str(ATTACK), "{endpoint}", name, *extra), (str(ATTACK),))


class _Descriptors(threading.Thread):
    """The most descriptors this process held at once, looked at every 5 ms."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.most = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.005):
            self.most = max(self.most, len(os.listdir("/proc/self/fd")))


def _table(seats: list[str], matches: int, sandbox: str, cap_mb: int | None) -> dict[str, Any]:
    """Play the table in this (fresh) process; its peak memory and descriptors, faults and the
    random bots' times."""
    fds = _Descriptors()
    fds.start()
    game = get_game("reactor")
    bots = [_seat(name, cap_mb, i) for i, name in enumerate(seats)]
    plans = [MatchPlan(f"memory:{m}", f"m{m}") for m in range(matches)]
    config = RefereeConfig(sandbox_mode=sandbox, faults_to_disqualify=1000)
    with Referee(config) as referee, referee.session() as session:
        reports = session.play_matches(game, GameConfig(players=len(seats)), bots, plans)
    fds.done.set()
    fds.join()
    games = [g for r in reports for g in r.games]
    victims = [d["ms"] for g in games for d in g.record["decisions"]
               if "ms" in d and seats[d["seat"]] == "random"]
    return {
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "fds": fds.most,
        "games": len(games),
        "faults": sorted({f.kind for g in games for f in g.faults}),
        "victim_ms": victims,
    }


def measure(seats: list[str], matches: int, sandbox: str, cap_mb: int | None) -> dict[str, Any]:
    """:func:`_table` in a fresh process (its memory is the referee's alone)."""
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1, maxtasksperchild=1) as pool:
        return pool.apply(_table, (seats, matches, sandbox, cap_mb))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--seats", type=int, default=6, help="attackers at an attacked table (and seats of every table)")
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--cap-mb", type=int, default=None, help="stop each flood after this many MB")
    parser.add_argument("--only", choices=MODES, action="append", help="these attacks only")
    args = parser.parse_args()
    logging.getLogger("arena.referee").setLevel(logging.ERROR)  # each fault is a warning: here, the point
    n = args.seats
    quiet = measure(["random"] * n, args.matches, args.sandbox, args.cap_mb)
    print(f"quiet table ({n} random bots): peak {quiet['peak_mb']:.0f} MB, {quiet['fds']} descriptors, "
          f"{quiet['games']} games; "
          f"decision time of a random bot, median {statistics.median(quiet['victim_ms']):.3f} ms, "
          f"mean {statistics.mean(quiet['victim_ms']):.3f} ms")
    for mode in args.only or MODES:
        result = measure([mode] * n, args.matches, args.sandbox, args.cap_mb)
        print(f"{n} x {mode}: peak {result['peak_mb']:.0f} MB, {result['fds']} descriptors, {result['games']} games, "
              f"faults {result['faults']}")
    if n >= 2:
        # One attacker of each kind, leaving at least two random bots (fewer kinds at a small table).
        attackers = list(MODES[:max(1, min(len(MODES), n - 2))])
        mixed = measure(attackers + ["random"] * (n - len(attackers)), args.matches, args.sandbox, args.cap_mb)
        calm = measure(["random"] * n, args.matches, args.sandbox, args.cap_mb)
        print(f"{'+'.join(attackers)} + {n - len(attackers)} random: peak {mixed['peak_mb']:.0f} MB, "
              f"{mixed['fds']} descriptors, faults {mixed['faults']}; decision time of "
              f"a random bot, median {statistics.median(mixed['victim_ms']):.3f} ms, mean "
              f"{statistics.mean(mixed['victim_ms']):.3f} ms (at a quiet table: median "
              f"{statistics.median(calm['victim_ms']):.3f}, mean {statistics.mean(calm['victim_ms']):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
