"""Benchmarks: measured, never assumed.  Every figure is a median over several repetitions, and
harness costs are reported as ratios against a baseline measured in the same run, because the
machines are shared and noisy.

* engines: in-process random playouts, decisions/s and games/s per game and table size;
* pipe: the bare round trip of a ~500-byte message to a child process over a pipe (baseline);
* referee: the round trip of one real decision request to a warm, sandboxed bot over ZeroMQ;
* cpu: CPU time per decision, referee and bot together (marginal: fixed start-up costs cancel);
* harness: full-tournament games/s with 4 sandboxed random bots, 1 worker and 2 workers;
* memory: the coordinator's peak memory over a short and a long tournament.

May import the tournament layer and everything below it.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.execution import affinity
from arena.games import REGISTRY, GameConfig, SeededChance
from arena.referee import DEFAULT_CONCURRENT

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "bots" / "random_bot.py"


# -- engines ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EngineSpeed:
    """Random-playout speed of one game at one table size, on one core."""

    game: str
    players: int
    games_per_s: float
    decisions_per_s: float
    decisions_per_game: float


def random_playouts(game_name: str, players: int, games: int, seed: int = 0) -> tuple[float, int]:
    """Play ``games`` random games in-process; return (seconds, decisions)."""
    game = REGISTRY[game_name]
    config = GameConfig(players=players)
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        state = game.new_game(config, SeededChance(f"{seed}:{g}"))
        legal_actions, apply, to_move = state.legal_actions, state.apply, state.to_move
        while to_move() is not None:
            legal = legal_actions()
            apply(legal[rng.randrange(len(legal))])
        decisions += len(state.decisions)
    return time.perf_counter() - start, decisions


def engine_speed(game_name: str, players: int, games: int = 200, repeats: int = 5) -> EngineSpeed:
    """Median over ``repeats`` runs of ``games`` random playouts."""
    runs = [random_playouts(game_name, players, games, seed=r) for r in range(repeats)]
    seconds, decisions = sorted(runs, key=lambda run: run[1] / run[0])[len(runs) // 2]
    return EngineSpeed(game_name, players, games / seconds, decisions / seconds,
                       statistics.median(d / games for _, d in runs))


def engine_table(players_by_game: dict[str, list[int]] | None = None, games: int = 200,
                 repeats: int = 5) -> list[EngineSpeed]:
    """Engine speed for each game and table size (default: every allowed size)."""
    if players_by_game is None:
        players_by_game = {n: list(range(g.min_players, g.max_players + 1)) for n, g in REGISTRY.items()}
    return [engine_speed(name, n, games, repeats) for name, sizes in players_by_game.items() for n in sizes]


# -- the pipe baseline --------------------------------------------------------------------------------

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


# -- the referee's round trip ------------------------------------------------------------------------


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


# -- CPU per decision over whole games ------------------------------------------------------------


def session_cpu(games: int, sandbox_mode: str, bot: Path = RANDOM_BOT,
                concurrent: int = DEFAULT_CONCURRENT) -> tuple[float, float, int, int, int]:
    """Play ``games`` 4-player Reactor games in one session of four copies of ``bot``, up to
    ``concurrent`` at once (as a tournament plays a lineup's matches).

    Returns (referee CPU, bots' CPU, decisions, decisions that needed a round trip, bot starts).
    The referee's CPU is this whole process's (its ZeroMQ threads included), so run it in a
    fresh child (:func:`in_child`).
    """
    from arena.games import get_game
    from arena.referee import MatchPlan, Referee, RefereeConfig, bot_spec

    game = get_game("reactor")
    bots = [bot_spec(str(bot), f"r{i}") for i in range(4)]
    decisions = asked = starts = 0
    before = _cpu_self()
    plans = [MatchPlan(f"cpu:{g}", f"m{g}") for g in range(games)]
    config = RefereeConfig(sandbox_mode=sandbox_mode, concurrent=concurrent)
    with Referee(config) as referee, referee.session() as session:
        for report in session.play_matches(game, GameConfig(players=4), bots, plans):
            for r in report.games:
                decisions += len(r.record["decisions"])
                asked += sum("ms" in d for d in r.record["decisions"])
            starts += sum(report.starts)
        # The bots' CPU is read from /proc while they still run: a bot under bubblewrap is
        # reaped inside its PID namespace, so its time never reaches RUSAGE_CHILDREN here.
        # Children that already ended (none, unless a bot was restarted) are in RUSAGE_CHILDREN.
        bots_cpu = _proc_cpu([pid for pid in _descendants(os.getpid()) if pid != os.getpid()])
        ended = resource.getrusage(resource.RUSAGE_CHILDREN)
        bots_cpu += ended.ru_utime + ended.ru_stime
        referee_cpu = _cpu_self() - before
    return referee_cpu, bots_cpu, decisions, asked, starts


def in_child(target: Any, *args: Any) -> Any:
    """``target(*args)`` run in a fresh forked process, its return value sent back: its resource
    usage is then its own, not this process's."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=lambda: queue.put(target(*args)))
    proc.start()
    result = queue.get()
    proc.join()
    return result


@dataclass(frozen=True, slots=True)
class CpuPerDecision:
    """Marginal CPU of a decision in µs (referee and bots), and how many decisions needed a round trip."""

    per_decision_us: float
    per_round_trip_us: float
    asked_share: float
    bot_starts_per_match: float
    concurrent: int = 1  # games in play at once
    referee_us: float = 0.0  # the referee's share of per_decision_us (its process, all threads)
    bots_us: float = 0.0  # the bots' share (all four processes)


def cpu_per_decision(short: int = 16, long: int = 80, repeats: int = 3, sandbox_mode: str = "auto",
                     concurrent: int = 16) -> CpuPerDecision:
    """(CPU of a long run − CPU of a short run) / (extra decisions): start-up costs cancel out.

    Both runs play ``concurrent`` games at once (the short one has at least that many), so the
    difference is the cost of a decision at that concurrency."""
    per_decision, per_trip, shares, starts, referee, bots = [], [], [], [], [], []
    for _ in range(repeats):
        ref_a, bots_a, dec_a, ask_a, _ = in_child(session_cpu, short, sandbox_mode, RANDOM_BOT, concurrent)
        ref_b, bots_b, dec_b, ask_b, st = in_child(session_cpu, long, sandbox_mode, RANDOM_BOT, concurrent)
        cpu_a, cpu_b = ref_a + bots_a, ref_b + bots_b
        per_decision.append((cpu_b - cpu_a) / (dec_b - dec_a))
        referee.append((ref_b - ref_a) / (dec_b - dec_a))
        bots.append((bots_b - bots_a) / (dec_b - dec_a))
        per_trip.append((cpu_b - cpu_a) / (ask_b - ask_a))
        shares.append(ask_b / dec_b)
        starts.append(st / long)
    return CpuPerDecision(statistics.median(per_decision) * 1e6, statistics.median(per_trip) * 1e6,
                          statistics.median(shares), statistics.median(starts), concurrent,
                          statistics.median(referee) * 1e6, statistics.median(bots) * 1e6)


@dataclass(frozen=True, slots=True)
class DecisionFloor:
    """CPU per decision of the work every decision needs whatever the transport, in µs."""

    per_decision_us: float
    engine_us: float  # of which the rules alone (legal actions and apply)
    asked_share: float


def _floor_games(games: int, seed: int, messages_too: bool) -> tuple[float, int, int]:
    """Play ``games`` 4-seat Reactor games as (e) does, in this process; with ``messages_too``,
    every decision with a choice also builds, encodes and decodes its request and answer.

    Returns (CPU seconds, decisions, decisions with a choice)."""
    from protocol import codec, messages

    game = REGISTRY["reactor"]
    rng = random.Random(seed)
    decisions = asked = 0
    before = _cpu_self()
    for g in range(games):
        state = game.new_game(GameConfig(players=4), SeededChance(f"floor:{seed}:{g}"))
        cursor = [0] * 4
        while (decision := state.to_move()) is not None:
            legal = state.legal_actions()
            decisions += 1
            if len(legal) == 1:  # applied by the referee without a round trip
                state.apply(legal[0])
                continue
            asked += 1
            if not messages_too:
                state.apply(legal[rng.randrange(len(legal))])
                continue
            seat = decision.seat
            # The referee's side: the request, as Referee sends it (one per frame at the least).
            frame = codec.dumps(messages.request(
                asked, "floor", decision.kind, state.observation(seat), legal, 60000, 2000,
                state.events(seat, cursor[seat])))
            cursor[seat] = len(state.log)
            # The bot's side: read it, choose, answer.
            msg = codec.loads(frame)
            answer = codec.dumps(messages.action(msg["id"], rng.choice(msg["legal"])))
            # The referee's side again: read the answer and take its copy of the action.
            chosen = codec.loads(answer)["action"]
            state.apply(next(action for action in legal if action == chosen))
    return _cpu_self() - before, decisions, asked


def decision_floor(games: int = 200, repeats: int = 5) -> DecisionFloor:
    """(f): what a decision costs with no transport, no second process and no bookkeeping at all:
    the rules, the observation and events, and encoding and decoding the request and the answer,
    in one warm process.  No harness can spend less per decision with these messages, so it
    bounds from below what (e) can reach."""
    full, engine, shares = [], [], []
    for r in range(repeats):
        cpu, decisions, asked = _floor_games(games, r, True)
        full.append(cpu / decisions)
        cpu, decisions, _ = _floor_games(games, r, False)
        engine.append(cpu / decisions)
        shares.append(asked / decisions)
    return DecisionFloor(statistics.median(full) * 1e6, statistics.median(engine) * 1e6, statistics.median(shares))


# -- full harness and memory ------------------------------------------------------------------------


def _tournament_file(folder: Path, name: str, bots: int, seats: int, games: int, sandbox_mode: str) -> Path:
    path = folder / f"{name}.toml"
    entries = "".join(f'[[bots]]\nname = "r{i}"\npath = "{RANDOM_BOT}"\n' for i in range(bots))
    path.write_text(f'name = "{name}"\ngame = "reactor"\nseats = {seats}\ngames = {games}\nseed = 1\n'
                    f'[sandbox]\nmode = "{sandbox_mode}"\n{entries}')
    return path


def _run_tournament(file: Path, db: Path, workers: int, count_starts: bool) -> tuple[float, int, int, int]:
    """Run a tournament as `arena run` does (in a fresh child: see run_tournament): wall time, games, peak RSS, bot starts."""
    from arena.storage import open_store
    from arena.tournament import Tournament
    from arena.tournament.file import load_tournament

    spec = load_tournament(file)
    with open_store(db) as store:
        tournament = Tournament(spec, store)
        t0 = time.perf_counter()
        outcome = tournament.run(workers=workers)
        seconds = time.perf_counter() - t0
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # before reading records back
        starts = 0
        if count_starts:
            starts = sum(sum(store.game_record(g.id).get("starts", []))
                         for g in store.games(tournament=spec.name, limit=1_000_000))
    return seconds, outcome.played, peak_kb, starts


def run_tournament(file: Path, db: Path, workers: int, count_starts: bool = False) -> tuple[float, int, int, int]:
    """Run a tournament in a fresh child process: (seconds, games, peak RSS in KB, bot starts)."""
    return in_child(_run_tournament, file, db, workers, count_starts)


@dataclass(frozen=True, slots=True)
class Throughput:
    workers: int
    games_per_s: float
    games: int
    bot_starts: int


def harness_throughput(games_per_rotation: int = 10, repeats: int = 3,
                       sandbox_mode: str = "auto") -> tuple[list[Throughput], float]:
    """Games/s of a real tournament (4 random bots at a 4-seat table, every rotation) with 1 and
    2 workers, and the median of the 2-worker/1-worker ratios of back-to-back pairs of runs (on
    a shared machine, a pair sees the same background load; separate medians would not)."""
    rates: dict[int, list[float]] = {1: [], 2: []}
    starts = {1: 0, 2: 0}
    games = {1: 0, 2: 0}
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        folder = Path(tmp)
        for r in range(repeats):
            for workers in (1, 2):
                file = _tournament_file(folder, f"w{workers}r{r}", 4, 4, games_per_rotation, sandbox_mode)
                seconds, played, _, starts[workers] = run_tournament(file, folder / f"w{workers}r{r}.db", workers, True)
                rates[workers].append(played / seconds)
                games[workers] = played
    out = [Throughput(w, statistics.median(rates[w]), games[w], starts[w]) for w in (1, 2)]
    return out, statistics.median(two / one for one, two in zip(rates[1], rates[2]))


@dataclass(frozen=True, slots=True)
class MemoryUse:
    games: int
    peak_rss_mb: float


def coordinator_memory(sizes: tuple[int, ...] = (100, 5000), sandbox_mode: str = "auto", workers: int = 2) -> list[MemoryUse]:
    """Peak RSS of the coordinator process over tournaments of different lengths (2-seat tables)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        folder = Path(tmp)
        for size in sizes:
            # 2 bots at 2 seats: one table, 2 rotations per repetition.
            file = _tournament_file(folder, f"mem{size}", 2, 2, max(size // 2, 1), sandbox_mode)
            _, played, rss_kb, _ = run_tournament(file, folder / f"mem{size}.db", workers)
            out.append(MemoryUse(played, rss_kb / 1024))
    return out


# -- the whole report ----------------------------------------------------------------------------------

PARTS = ("engines", "pipe", "referee", "cpu", "floor", "harness", "memory")


@dataclass(slots=True)
class BenchReport:
    engines: list[EngineSpeed] = field(default_factory=list)
    pipe: RoundTrip | None = None
    pipe_bytes: RoundTrip | None = None
    referee: RoundTrip | None = None
    cpu: CpuPerDecision | None = None
    cpu_serial: CpuPerDecision | None = None  # the same, one game at a time (bots that offer no more)
    floor: DecisionFloor | None = None
    harness: list[Throughput] = field(default_factory=list)
    two_vs_one: float | None = None  # median ratio of back-to-back pairs
    pinned: bool = True
    memory: list[MemoryUse] = field(default_factory=list)

    def ratios(self) -> dict[str, float]:
        out: dict[str, float] = {}
        if self.pipe and self.referee:
            out["referee_latency_vs_pipe"] = self.referee.latency_us / self.pipe.latency_us
            out["referee_cpu_vs_pipe"] = self.referee.cpu_us / self.pipe.cpu_us
        if self.pipe and self.cpu:
            out["cpu_per_decision_vs_pipe"] = self.cpu.per_decision_us / self.pipe.cpu_us
            out["cpu_per_round_trip_vs_pipe"] = self.cpu.per_round_trip_us / self.pipe.cpu_us
        if self.pipe and self.cpu_serial:
            out["cpu_per_decision_one_at_a_time_vs_pipe"] = self.cpu_serial.per_decision_us / self.pipe.cpu_us
        if self.pipe and self.floor:
            out["decision_floor_vs_pipe"] = self.floor.per_decision_us / self.pipe.cpu_us
        if self.two_vs_one is not None:
            out["two_workers_vs_one"] = self.two_vs_one
        if len(self.memory) == 2:
            out["memory_long_vs_short"] = self.memory[1].peak_rss_mb / self.memory[0].peak_rss_mb
        return out

    def to_json(self) -> dict[str, Any]:
        return {**{k: v for k, v in asdict(self).items()}, "ratios": self.ratios()}

    def lines(self) -> list[str]:
        out = []
        if self.engines:
            out += ["in-process engines (random playouts, one core):",
                    f"  {'game':<12}{'seats':>6}{'games/s':>10}{'decisions/s':>14}{'decisions/game':>16}"]
        out += [f"  {e.game:<12}{e.players:>6}{e.games_per_s:>10.0f}{e.decisions_per_s:>14.0f}{e.decisions_per_game:>16.1f}"
                for e in self.engines]
        if self.pipe or self.referee or self.cpu:
            out.append("(b), (c), (e) " + ("pinned to one CPU under SCHED_BATCH, as a tournament worker is" if self.pinned
                                           else "not pinned (--no-pin)"))
        if self.pipe:
            out.append(f"(b) baseline, {self.pipe.name}: {self.pipe.latency_us:.1f} µs, CPU {self.pipe.cpu_us:.1f} µs")
        if self.pipe_bytes:
            out.append(f"    for reference, {self.pipe_bytes.name}: {self.pipe_bytes.latency_us:.1f} µs, "
                       f"CPU {self.pipe_bytes.cpu_us:.1f} µs")
        if self.referee:
            out.append(f"(c) referee decision round trip, warm sandboxed bot: {self.referee.latency_us:.1f} µs, "
                       f"CPU {self.referee.cpu_us:.1f} µs")
        for cpu in (self.cpu, self.cpu_serial):
            if cpu is not None:
                out.append(f"(e) CPU per decision over whole games, {cpu.concurrent} at once: {cpu.per_decision_us:.1f} µs "
                           f"(referee {cpu.referee_us:.1f}, bots {cpu.bots_us:.1f}; "
                           f"{cpu.asked_share:.0%} of decisions needed a round trip; "
                           f"{cpu.per_round_trip_us:.1f} µs per round trip); "
                           f"bot starts per match in a session: {cpu.bot_starts_per_match:.2f}")
        if self.floor:
            out.append(f"(f) floor, the same decisions in one process with no transport (rules, observation, "
                       f"events, request and answer encoded and decoded): {self.floor.per_decision_us:.1f} µs "
                       f"per decision (rules alone {self.floor.engine_us:.1f})")
        for h in self.harness:
            out.append(f"(d) full harness, 4 sandboxed random bots, {h.workers} worker(s): {h.games_per_s:.1f} games/s "
                       f"({h.games} games, {h.bot_starts} bot starts)")
        for m in self.memory:
            out.append(f"memory: coordinator peak RSS over {m.games} games: {m.peak_rss_mb:.1f} MB")
        ratios = self.ratios()
        if ratios:
            out.append("ratios (same run):")
            out += [f"  {k}: {v:.2f}" for k, v in ratios.items()]
        return out


def run_all(*, quick: bool = False, sandbox_mode: str = "auto", memory_games: int = 5000,
            parts: tuple[str, ...] = PARTS,
            echo: Any = None, pin: bool = True) -> BenchReport:
    """Every benchmark in one run (``quick``: fewer repetitions, for a smoke check)."""
    report = BenchReport()
    reps = 3 if quick else 5
    say = echo or (lambda line: None)
    if "engines" in parts:
        # Each game's smallest, middle and largest table.
        sizes = {name: sorted({g.min_players, (g.min_players + g.max_players + 1) // 2, g.max_players})
                 for name, g in REGISTRY.items()}
        report.engines = engine_table(sizes, games=50 if quick else 200, repeats=reps)
        say("engines done")
    count = 1000 if quick else 5000
    # (b), (c) and (e) run on one CPU, as a tournament worker and its bots do (arena.execution.affinity):
    # the baseline gets the same treatment, so the ratios compare like with like.
    report.pinned = pin
    mask = affinity.pin(affinity.worker_cpus(1)[0]) if pin else None
    try:
        if "pipe" in parts:
            report.pipe = pipe_echo(count, reps, "json")
            report.pipe_bytes = pipe_echo(count, reps, "bytes")
            say("pipe done")
        if "referee" in parts:
            report.referee = referee_round_trip(count, reps, sandbox_mode)
            say("referee done")
        if "cpu" in parts:
            # What a tournament does with the bundled bots (16 games of a lineup at once), and,
            # for bots that offer no concurrency, one game at a time.
            report.cpu = cpu_per_decision(4 if quick else 16, 12 if quick else 80, 1 if quick else 3, sandbox_mode, 16)
            report.cpu_serial = cpu_per_decision(2 if quick else 5, 6 if quick else 45, 1 if quick else 3,
                                                 sandbox_mode, 1)
            say("cpu done")
        if "floor" in parts:
            report.floor = decision_floor(50 if quick else 200, reps)
            say("floor done")
    finally:
        affinity.restore(mask)
    if "harness" in parts:
        # 400 games a run: long enough that bot start-ups (about 0.13 s of CPU each, once per job)
        # do not decide the ratio, as they do not in a real tournament.
        report.harness, report.two_vs_one = harness_throughput(3 if quick else 100, 1 if quick else 3, sandbox_mode)
        say("harness done")
    if "memory" in parts:
        report.memory = coordinator_memory((100, 400 if quick else memory_games), sandbox_mode)
        say("memory done")
    return report
