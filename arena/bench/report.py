"""The whole report: every part, its ratios against the baselines of the same run, as lines and JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from arena.bench.cpu import CpuPerDecision, DecisionFloor, cpu_per_decision, decision_floor
from arena.bench.engines import EngineSpeed, engine_table
from arena.bench.harness import MemoryUse, Throughput, coordinator_memory, harness_throughput
from arena.bench.roundtrip import RoundTrip, pipe_echo, referee_round_trip
from arena.execution import affinity
from arena.games import REGISTRY

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
