"""Measure the SDK's CPU per request in one process, with warm caches and with caches evicted.

    python benchmarks/sdk_cold_cache.py [--games 64] [--batch 4] [--evict-kb 0 1024 4096 16384]

In a tournament a worker's referee and its bots share one CPU, so each process wakes with its
data pushed out of the CPU caches by the others.  This replays the frames one seat of 4-player
Reactor games receives (``requests`` frames of ``--batch`` games, as a batching bot gets them)
through ``protocol.sdk.run`` and the bundled random bot, over a fake channel: no sockets, no
other process.  Between frames it writes ``--evict-kb`` of memory, as the other processes do.
Printed: CPU µs per request (this thread's time, the eviction itself not counted).

On the project's 2-core machine (L2 2 MB a core) the SDK took 8-9 µs per request warm, 15 µs
with 4 MB written between frames and 21-23 µs with 16 MB, whether frames held 4 requests or 16;
inside a real table the same bot spends about 22 µs per request outside its socket calls.  That, not the transport, is
why CPU per decision stays far above the pipe baseline, whose two small processes stay cached.
A benchmark, not a test: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bots"))

import random_bot  # noqa: E402

from arena.games import GameConfig, SeededChance, get_game  # noqa: E402
from protocol import codec, messages, sdk  # noqa: E402


def frames_for_seat(games: int, batch: int, seat: int = 0) -> tuple[list[bytes], int]:
    """The frames seat ``seat`` receives over ``games`` random 4-player Reactor games, their
    requests grouped ``batch`` games at a time; and how many requests they hold."""
    game = get_game("reactor")
    rng = random.Random(1)
    per_game: list[list[dict[str, Any]]] = []
    for g in range(games):
        state = game.new_game(GameConfig(players=4), SeededChance(f"cold:{g}"))
        cursor, requests = 0, []
        while (decision := state.to_move()) is not None:
            legal = state.legal_actions()
            if decision.seat == seat and len(legal) > 1:
                requests.append(messages.request(
                    len(requests) + 1 + 1000 * g, f"m{g}-g0", decision.kind, state.observation(seat), legal,
                    60_000, 2_000, state.events(seat, cursor)))
                cursor = len(state.log)
            state.apply(legal[rng.randrange(len(legal))])
        per_game.append(requests)
    frames = [codec.dumps(messages.welcome("reactor", seat, ["a", "b", "c", "d"], [], messages.Limits()))]
    count = 0
    for first in range(0, games, batch):
        group = list(range(first, min(first + batch, games)))
        for g in group:
            frames.append(codec.dumps(messages.game_start(f"m{g}-g0", 0, seat, {"players": 4}, [0] * 4,
                                                          seed=str(g), match_id=f"m{g}")))
        for step in range(max(len(per_game[g]) for g in group)):
            due = [per_game[g][step] for g in group if step < len(per_game[g])]
            count += len(due)
            frames.append(codec.dumps(due[0] if len(due) == 1 else messages.requests(due)))
        for g in group:
            frames.append(codec.dumps(messages.game_over(f"m{g}-g0", {"places": [1, 2, 3, 4], "winner": 0})))
            frames.append(codec.dumps(messages.match_over([1, 0, 0, 0], 0, match_id=f"m{g}")))
    frames.append(codec.dumps(messages.shutdown()))
    return frames, count


class ReplayChannel:
    """Stands in for the SDK's socket: hands out recorded frames, encodes and drops answers."""

    dropped = False

    def __init__(self, frames: list[bytes], evict: bytearray) -> None:
        self.frames = iter(frames)
        self.evict = evict
        self.evicting = 0.0  # thread CPU spent evicting, subtracted from the total
        self.answered = 0

    def send(self, msg: Any) -> bool:
        codec.dumps(msg)
        self.answered += len(msg["actions"]) if msg["type"] == "actions" else msg["type"] == "action"
        return True

    def recv_bytes(self, timeout_ms: int | None) -> bytes | None:
        if self.evict:
            t0 = time.thread_time()
            self.evict[::64] = bytes(len(self.evict) // 64)  # one write per cache line
            self.evicting += time.thread_time() - t0
        return next(self.frames)

    def close(self) -> None:
        pass


def cpu_per_request(frames: list[bytes], requests: int, evict_kb: int) -> float:
    """µs of this thread's CPU per request while the SDK and the random bot answer ``frames``."""
    channel = ReplayChannel(frames, bytearray(evict_kb * 1024))
    original = sdk.Channel.connect
    sdk.Channel.connect = classmethod(lambda cls, endpoint, context=None: channel)  # type: ignore[method-assign]
    try:
        t0 = time.thread_time()
        sdk.run(random_bot.RandomBot, name="random", endpoint="ipc://replay", concurrent=16)
        spent = time.thread_time() - t0 - channel.evicting
    finally:
        sdk.Channel.connect = original  # type: ignore[method-assign]
    if channel.answered != requests:
        raise RuntimeError(f"the SDK answered {channel.answered} of {requests} requests")
    return spent / requests * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64, help="games replayed")
    parser.add_argument("--batch", type=int, default=4, help="requests per frame (games at once)")
    parser.add_argument("--evict-kb", type=int, nargs="+", default=[0, 1024, 4096, 16384],
                        help="memory written between frames, KB (0: warm)")
    parser.add_argument("--repeats", type=int, default=5, help="runs; the median is printed")
    args = parser.parse_args()
    frames, requests = frames_for_seat(args.games, args.batch)
    print(f"{requests} requests in {len(frames)} frames")
    for kb in args.evict_kb:
        runs = sorted(cpu_per_request(frames, requests, kb) for _ in range(args.repeats))
        print(f"evicting {kb:>6} KB between frames: {runs[len(runs) // 2]:.1f} µs CPU per request")


if __name__ == "__main__":
    main()
