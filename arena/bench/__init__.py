"""Benchmarks: measured, never assumed.  Every figure is a median over several repetitions, and
harness costs are reported as ratios against a baseline measured in the same run, because the
machines are shared and noisy.

* engines: in-process random playouts, decisions/s and games/s per game and table size;
* pipe: the bare round trip of a ~500-byte message to a child process over a pipe (baseline);
* referee: the round trip of one real decision request to a warm, sandboxed bot over ZeroMQ;
* cpu: CPU time per decision, referee and bot together (marginal: fixed start-up costs cancel);
* harness: full-tournament games/s with 4 sandboxed random bots, 1 worker and 2 workers;
* memory: the coordinator's peak memory over a short and a long tournament.

Modules: ``engines``, ``roundtrip`` (pipe and referee), ``cpu`` (per decision, and the floor),
``harness`` (throughput and memory) and ``report`` (all of them, with the ratios).

May import the tournament layer and everything below it.
"""

from arena.bench.cpu import (CpuPerDecision, DecisionFloor, _floor_games, cpu_per_decision, decision_floor,
                              in_child, session_cpu)
from arena.bench.engines import EngineSpeed, engine_speed, engine_table, random_playouts
from arena.bench.harness import MemoryUse, Throughput, coordinator_memory, harness_throughput, run_tournament
from arena.bench.report import PARTS, BenchReport, run_all
from arena.bench.roundtrip import RoundTrip, pipe_echo, referee_round_trip, sample_request

__all__ = ["PARTS", "BenchReport", "CpuPerDecision", "DecisionFloor", "EngineSpeed", "MemoryUse", "RoundTrip",
           "Throughput", "_floor_games", "coordinator_memory", "cpu_per_decision", "decision_floor", "engine_speed",
           "engine_table", "harness_throughput", "in_child", "pipe_echo", "random_playouts", "referee_round_trip",
           "run_all", "run_tournament", "sample_request", "session_cpu"]
