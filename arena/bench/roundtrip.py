"""Round trips: the bare pipe to a child process (the baseline) and a real decision request to a
warm, sandboxed bot over ZeroMQ (the referee's), with the CPU each side spends."""

from __future__ import annotations

import io
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games import REGISTRY, GameConfig, SeededChance

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "bots" / "random_bot.py"


# The baseline child does what a minimal bot does, over a pipe instead of ZeroMQ: read one JSON
# message per line, decode it, encode a reply, write it back.  With ``bytes`` it only echoes.
_ECHO_CHILD = r"""
import os, resource, sys
try:
    import orjson as codec
except ImportError:
    import json as codec
mode = sys.argv[1]
stdin, stdout = os.fdopen(0, "rb"), os.fdopen(1, "wb", buffering=0)
for line in stdin:
    if line == b"\n":
        break
    if mode == "json":
        msg = codec.loads(line)
        reply = codec.dumps({"type": "action", "id": msg["id"], "action": msg["legal"][0]})
        reply = reply if isinstance(reply, bytes) else reply.encode()
        stdout.write(reply + b"\n")
    else:
        stdout.write(line)
u = resource.getrusage(resource.RUSAGE_SELF)
sys.stderr.write(f"{u.ru_utime + u.ru_stime}\n")
"""


@dataclass(frozen=True, slots=True)
class RoundTrip:
    """Median latency of one round trip and CPU per round trip (both ends together), in µs."""

    name: str
    latency_us: float
    cpu_us: float
    samples: int


def _cpu_self() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def pipe_echo(count: int = 5000, repeats: int = 5, mode: str = "json") -> RoundTrip:
    """The baseline: the benchmark's request sent to a Python child over a pipe and answered.

    ``json``: the child decodes the request and encodes an action reply, and the parent encodes
    and decodes, as both ends of the protocol do (the transport is the only difference from
    the referee's round trip).  ``bytes``: a bare byte echo, for reference.
    """
    from protocol import codec

    request, _ = sample_request()
    latencies, cpus = [], []
    startup = _child_startup_cpu(mode)
    for _ in range(repeats):
        child = subprocess.Popen([sys.executable, "-c", _ECHO_CHILD, mode], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        assert child.stdin is not None and child.stdout is not None
        replies = io.BufferedReader(child.stdout)  # a raw pipe's readline reads byte by byte
        samples = []
        before = 0.0
        for i in range(count + 50):  # the first 50 warm up
            if i == 50:
                before = _cpu_self()
            request["id"] = i
            t0 = time.perf_counter()
            child.stdin.write(codec.dumps(request) + b"\n")
            line = replies.readline()
            if mode == "json":
                codec.loads(line)
            if i >= 50:
                samples.append(time.perf_counter() - t0)
        parent = _cpu_self() - before
        child.stdin.write(b"\n")
        _, err = child.communicate()
        child_cpu = float(err.decode().strip().splitlines()[-1]) - startup
        latencies.append(statistics.median(samples))
        cpus.append((parent + max(child_cpu, 0.0)) / count)
    name = "pipe round trip (JSON request and reply)" if mode == "json" else "pipe byte echo"
    return RoundTrip(name, statistics.median(latencies) * 1e6, statistics.median(cpus) * 1e6, count)


def _child_startup_cpu(mode: str) -> float:
    """CPU of starting the echo child and exiting at once (subtracted from its total)."""
    runs = []
    for _ in range(3):
        child = subprocess.run([sys.executable, "-c", _ECHO_CHILD, mode], input=b"\n", capture_output=True)
        runs.append(float(child.stderr.decode().strip().splitlines()[-1]))
    return statistics.median(runs)


def sample_request() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A real Reactor decision request from the middle of a 4-player game."""
    game = REGISTRY["reactor"]
    state = game.new_game(GameConfig(players=4), SeededChance("bench"))
    rng = random.Random(1)
    for _ in range(12):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    while len(state.legal_actions()) < 3:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    seat = state.to_move().seat
    legal = state.legal_actions()
    request = {"type": "request", "id": 0, "game_id": "bench-g0", "decision": "RD1",
               "observation": state.observation(seat), "events": state.events(seat, len(state.log) - 2),
               "forced": [], "legal": legal, "time_left_ms": 60000, "deadline_ms": 2000}
    return request, legal


def _proc_cpu(pids: list[int]) -> float:
    """CPU seconds used so far by these processes (from /proc, clock ticks)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / tick


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def referee_round_trip(count: int = 5000, repeats: int = 5, sandbox_mode: str = "auto") -> RoundTrip:
    """One decision to a warm sandboxed SDK bot: encode, send, the bot's choice, receive, check."""
    from arena.referee import RefereeConfig, bot_spec
    from arena.referee.link import Links
    from arena.referee.seat import Seat

    request, legal = sample_request()
    latencies, cpus = [], []
    links = Links()
    workroot = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    os.chmod(workroot, 0o711)
    try:
        for _ in range(repeats):
            seat = Seat(0, bot_spec(str(RANDOM_BOT)), links, RefereeConfig(sandbox_mode=sandbox_mode), workroot)
            seat.launch()
            seat.handshake(time.monotonic() + 20)
            if not seat.ready:
                raise RuntimeError(f"the benchmark bot did not start: {seat.startup_fault}")
            for i in range(50):
                request["id"] = seat.next_id = seat.next_id + 1
                seat.ask(request, legal, 2000)
            pids = _descendants(seat.proc.pid)
            before_self, before_bot = _cpu_self(), _proc_cpu(pids)
            samples = []
            for _ in range(count):
                request["id"] = seat.next_id = seat.next_id + 1
                t0 = time.perf_counter()
                seat.ask(request, legal, 2000)
                samples.append(time.perf_counter() - t0)
            cpu = (_cpu_self() - before_self) + (_proc_cpu(pids) - before_bot)
            seat.stop()
            latencies.append(statistics.median(samples))
            cpus.append(cpu / count)
    finally:
        links.close_all()
        shutil.rmtree(workroot, ignore_errors=True)  # left behind, one folder per run
    return RoundTrip("referee decision (ZeroMQ, sandboxed bot)", statistics.median(latencies) * 1e6,
                     statistics.median(cpus) * 1e6, count)
