"""CPU per decision over whole games (marginal: a long run minus a short one, so fixed start-up
costs cancel), and the floor: what the rules alone cost against the rules with messages."""

from __future__ import annotations

import multiprocessing
import os
import random
import resource
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bench.roundtrip import RANDOM_BOT, _cpu_self, _descendants, _proc_cpu
from arena.games import REGISTRY, GameConfig, SeededChance
from arena.referee import DEFAULT_CONCURRENT


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
