"""The games of one lineup in play: started together, their requests interleaved, faults turned into forfeits."""

from __future__ import annotations

import gc
import logging
import math
import select
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from arena.bots.spec import BotSpec
from arena.games import Game, GameResult, SeededChance
from arena.games.record import make_record
from arena.referee.config import RefereeConfig
from arena.referee.logs import kept_log
from arena.core.faults import FaultRecord
from arena.core import ids
from arena.referee.reports import GameReport, MatchReport, now_iso
from arena.referee.inplay import GameInPlay, MatchInPlay, Pending
from arena.referee.seat import Seat, bot_seed
from arena.referee.standing import FAULT, standing, step
from protocol import messages
from protocol.faults import FaultKind, ProtocolFault
from protocol.messages import Limits
from arena.referee.link import BotLink, LinkFault

log = logging.getLogger("arena.referee")


# Faults after which a bot can not go on: it is dead, stuck, cut off, or its answers can no longer
# be matched to requests (stale).  It is stopped at once, and forfeits every game it plays.
FATAL = frozenset({FaultKind.TIMEOUT, FaultKind.CRASH, FaultKind.DISCONNECTED, FaultKind.TOO_LARGE,
                   FaultKind.STALE, FaultKind.MULTIPART, FaultKind.UNREAD})
_READABLE = select.POLLIN | select.POLLHUP | select.POLLERR


COLLATERAL_NOTE = "played at the same time; the bot was stopped"  # says why in a collateral fault's message


def tally(run: MatchInPlay, seat: int, counted: str, threshold: int) -> bool:
    """Count one game of ``seat`` (its ``standing``) towards disqualification; True if a fault
    of this game disqualifies it."""
    was_out = seat in run.disqualified
    run.faults_in_a_row[seat], out = step(counted, run.faults_in_a_row[seat], was_out, threshold)
    if out:
        run.disqualified.add(seat)
    return out and not was_out and counted == FAULT


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect the young generation every 20,000 allocations instead of 700 while a table plays.

    A table makes many short-lived dicts (requests, observations) next to long-lived records;
    the default threshold spent about 7% of the referee's CPU (3 of 48 µs per decision) in the
    collector.  Nothing is left uncollected: the threshold only spaces the collections out."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 20_000), before[1], before[2])
    try:
        yield
    finally:
        gc.set_threshold(*before)


class Table:
    """The games of one lineup in play: starts them, asks the bots, and turns faults into forfeits."""

    def __init__(self, config: RefereeConfig, last_report: dict[tuple[BotSpec, int], GameReport], game: Game,
                 seats: list[Seat], names: list[str], keys: list[tuple[BotSpec, int]], variants: list[str]) -> None:
        self.config = config
        self.last_report = last_report  # the session's: each bot's latest game report, kept across tables
        self.game = game
        self.seats = seats
        self.names = names
        self.keys = keys
        self.variants = variants
        self.ended: list[MatchInPlay] = []
        self.limit = self.concurrency()
        self.pollers: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[Any, dict[int, Seat]]] = {}
        self.polled = -1  # the value of Seat.changes the pollers were made for

    # -- starting games -----------------------------------------------------------------------

    def concurrency(self) -> int:
        """Games at once: what every bot offered (a bot not started yet counts as 1), at most
        ``RefereeConfig.concurrent``."""
        return max(1, min(self.config.concurrent, *(seat.concurrent if seat.ready else 1 for seat in self.seats)))

    def start_games(self, queue: deque[MatchInPlay], live: list[GameInPlay]) -> None:
        """Start the next games, as many as the bots play at once; first (re)start every bot that
        is needed and not running, once a faulted bot has finished its games.  Called between
        rounds, when no request is pending, so a start-up wait is never charged to a bot."""
        while queue and len(live) < self.limit:
            run = queue[0]
            # A resumed match that was already complete, or one where every seat is disqualified
            # (nothing is left to decide: it went on to its game cap, storing forfeit-only games).
            if run.match.over or len(run.disqualified) == len(self.seats):
                queue.popleft()
                self.end_match(run)
                continue
            needed = [s for i, s in enumerate(self.seats) if i not in run.disqualified]
            fresh = [s for s in needed if not s.ready or s.retiring]
            if fresh:
                if any(s.playing for s in fresh):
                    return
                self.ready(needed)
                if len(live) >= self.limit:  # a restarted bot may offer fewer games at once
                    return
            else:
                self.welcome(needed)
            queue.popleft()
            live.append(self.start_game(run))

    def ready(self, seats: list[Seat]) -> None:
        """(Re)start every bot that is not running, then welcome each to this lineup."""
        fresh = [s for s in seats if not s.ready or s.retiring]
        for seat in fresh:
            seat.stop(reason="restart")
            seat.launch()
        deadline = time.monotonic() + self.config.limits.startup_ms / 1000
        for seat in fresh:
            seat.handshake(deadline)
        self.limit = self.concurrency()
        self.welcome(seats)

    def welcome(self, seats: list[Seat]) -> None:
        for seat in seats:
            if seat.ready and seat.welcomed != (self.names, seat.index, self.variants):
                seat.welcome(self.game.name, self.names, self.variants)
                seat.welcomed = (self.names, seat.index, self.variants)

    def start_game(self, run: MatchInPlay) -> GameInPlay:
        match = run.match
        config = match.next_config()
        index = len(match.results)
        seed = f"{run.seed}:{index}"
        n = len(self.seats)
        state = self.game.new_game(config, SeededChance(seed))
        if self.config.uniform_timing:
            state.cover_hidden_skips()
        g = GameInPlay(
            run=run, state=state, index=index,
            game_id=ids.game_id(run.match_id, index), seed=seed, started=now_iso(), t0=time.monotonic(),
            fault=[None] * n, cursor=[0] * n, forced=[[] for _ in range(n)],
            time_left_ms=[self.config.limits.game_ms] * n, wall_left_ms=[self.config.limits.game_wall_ms] * n,
            generation=[0] * n,
            starts=[s.starts - s.counted for s in self.seats],
        )
        for i, seat in enumerate(self.seats):
            seat.counted = seat.starts  # each start is counted once, in the next game started
            if i in run.disqualified:
                g.fault[i] = FaultRecord(i, FaultKind.DISQUALIFIED.value, bot=seat.spec.name,
                                         message="disqualified from this match after faults in several games in a row")
            elif seat.startup_fault is not None:
                record = FaultRecord(i, seat.startup_fault.kind.value, seat.startup_fault.fault.message,
                                     bot=seat.spec.name)
                g.fault[i] = record
                g.faults.append(record)
                g.logs[i], seat.startup_log = seat.startup_log, ""
                seat.startup_fault = None  # reported once; the bot is started again for the next game
                log.warning("%s (seat %d) faulted in %s: %s: %s", seat.spec.name, i, g.game_id, record.kind,
                            record.message)
            elif seat.ready and seat.link is not None:
                seat.send(messages.game_start(
                    g.game_id, index, i, config.to_json(), match.scores, bot_seed(seed, i), run.match_id))
                g.generation[i] = seat.starts
                seat.playing.add(g)
        # Bots that are not here leave before the first decision: one that never started must
        # not outlast the bots that play (and win when they forfeit first).
        absent = {i: fault.kind for i, fault in enumerate(g.fault) if fault is not None}
        if absent:
            g.state.forfeit_absent(absent)
            g.extra.extend({"fault": kind} for kind in absent.values())
        return g

    # -- playing ------------------------------------------------------------------------------

    def advance(self, g: GameInPlay) -> bool:
        """Play ``g`` up to its next request to a bot (sent) or its end; True once it is over."""
        state = g.state
        limits = self.config.limits
        auto_single = not self.config.uniform_timing
        while (decision := state.to_move()) is not None:
            i = decision.seat
            fault = g.fault[i]
            if fault is not None:
                if state.covering:  # no decision of the rules: nothing to forfeit at, it only moves on
                    state.apply(state.legal_actions()[0])
                    continue
                # A seat removed from the game forfeits at its first decision (the engine's rule).
                state.forfeit(i, fault.kind)
                g.extra.append({"fault": fault.kind})
                continue
            legal = state.legal_actions()
            if auto_single and len(legal) == 1:
                state.apply(legal[0])
                g.forced[i].append(messages.forced(decision.kind, legal[0]))
                g.extra.append({"auto": True})
                continue
            seat = self.seats[i]
            if g.time_left_ms[i] <= 0 or g.wall_left_ms[i] <= 0:
                # Its last answer came as its game time ran out (a deadline is kept to the
                # millisecond): no time is left to ask it anything, so it forfeits now, as any
                # fault does, but not as a fatal one: it is waiting, not thinking.
                self.forfeit(seat, g, i, len(state.decisions), _game_time_fault(limits, g.time_left_ms[i] <= 0),
                             fatal=False)
                continue
            deadline_ms = min(limits.decision_ms, g.time_left_ms[i])
            wall_ms = min(limits.decision_wall_ms, g.wall_left_ms[i])
            seat.next_id += 1
            request = {
                "type": "request",
                "id": seat.next_id,
                "game_id": g.game_id,
                "decision": decision.kind,
                "observation": state.observation(i),
                "events": state.events(i, g.cursor[i]),
                "forced": g.forced[i],
                "legal": legal,
                "time_left_ms": g.time_left_ms[i],
                "deadline_ms": deadline_ms,
                "wall_ms": wall_ms,
            }
            g.cursor[i] = len(state.log)
            g.forced[i] = []
            pending = Pending(seat.next_id, g, i, legal, 0.0, deadline_ms, wall_ms, len(state.decisions))
            seat.pending[pending.request_id] = g.asked = pending
            seat.outbox.append((request, pending))
            return False
        return True

    def flush(self) -> None:
        """Send the requests made since the last flush: to a bot that offered ``batch``, all of
        its requests in one frame; to others, one frame each.  A request's clock starts here."""
        for seat in self.seats:
            outbox = seat.outbox
            if not outbox:
                continue
            seat.outbox = []
            reading = seat.cpu_now()  # before the request goes: the bot's work on it is all counted
            sent = time.monotonic()
            for _, pending in outbox:
                pending.sent = sent
            seat.start_clock(sent, reading)
            if seat.batch and len(outbox) > 1:
                ok = seat.send(messages.requests(request for request, _ in outbox))
            else:
                ok = all(seat.send(request) for request, _ in outbox)
            if not ok and seat.pending:  # no peer: it died or closed its socket
                # Charged, like any silence, to the oldest request it owes (what it was working on).
                self.fault(seat, next(iter(seat.pending.values())), seat._silence_fault("when the referee sent it a request"))

    def collect(self) -> None:
        """Wait until an answer comes or a limit may have passed; apply every answer that came,
        and time out the requests whose limit passed: a request's wall-clock limit runs from when
        it was sent, its CPU allowance from when its clock started (see :meth:`Seat.start_clock`).
        A bot's CPU time is looked at only as often as it could have used up its allowance."""
        waiting = [seat for seat in self.seats if seat.pending]
        wake = min(min(p.sent + p.wall_ms / 1000 for p in seat.pending.values()) for seat in waiting)
        wake = min(wake, *(seat.check_at for seat in waiting))
        poller, owners = self._poller(waiting)
        ready = poller.poll(max(0, math.ceil((wake - time.monotonic()) * 1000)))
        polled = time.monotonic()  # from here the referee is busy, and sees no frame come
        self.read(ready, owners, polled)
        if time.monotonic() < wake:
            return
        # Reading a frame can take the referee a while (a large one, or one it must check answer
        # by answer): an answer that came meanwhile is read before anyone is charged with a
        # timeout, and counts as come when the referee stopped watching, so that one bot's frame
        # can never cost another bot its game.
        poller, owners = self._poller([seat for seat in self.seats if seat.pending])
        self.read(poller.poll(0), owners, polled)
        now = time.monotonic()
        limits = self.config.limits
        for seat in waiting:
            for p in list(seat.pending.values()):
                if seat.pending.get(p.request_id) is p and now >= p.sent + p.wall_ms / 1000:
                    fault = seat._silence_fault(f"within the {p.wall_ms} ms of wall-clock time a decision may take")
                    if fault.kind == FaultKind.TIMEOUT and p.wall_ms < limits.decision_wall_ms:
                        fault = _game_time_fault(limits, cpu=False)
                    self.fault(seat, p, fault)
            if seat.pending and now >= seat.check_at:
                reading = seat.cpu_now()
                used_ns = reading - seat.cpu_start
                over = [p for p in seat.pending.values() if used_ns >= p.deadline_ms * 1_000_000]
                for p in over:
                    if seat.pending.get(p.request_id) is p:
                        self.fault(seat, p, _cpu_fault(limits, p, used_ns))
                if seat.pending:
                    if seat.clock is not None:
                        seat.clock.refresh()  # a process it started to think in counts from now on
                    seat.schedule_check(now, reading)

    def read(self, ready: list[tuple[int, int]], seats: dict[int, Seat], polled: float) -> None:
        """Apply the answers a poll found (``ready``: its descriptors and events; ``seats``: whose
        they are; ``polled``: when it returned, the nearest the referee knows to when they came),
        and give the sockets that can take it the output waiting for them.  A bot whose
        connection dropped while it owed an answer is cut off."""
        for fd, events in ready:
            seat = seats.get(fd)
            link = seat.link if seat is not None else None
            if link is None or link.fileno() != fd:
                continue  # stopped (or restarted) by an earlier fault in this poll
            if events & select.POLLOUT:
                link.flush()
            if seat.pending and events & _READABLE:
                self.drain(seat, polled)
                if seat.link is link and link.dropped and seat.pending:
                    self.cut_off(seat)

    def cut_off(self, seat: Seat) -> None:
        """``seat``'s bot forfeits, fatally: charged to the request it owes, else to a game it plays
        (a bot between games is cut off at its next one)."""
        if seat.pending:
            p = next(iter(seat.pending.values()))
            self.fault(seat, p, seat._silence_fault(f"while the referee waited up to {p.deadline_ms} ms for its answer"))
        elif seat.playing:
            g = next(iter(seat.playing))
            self.forfeit(seat, g, seat.index, len(g.state.decisions), seat._silence_fault("while it owed no answer"),
                         fatal=True)

    def drain(self, seat: Seat, arrived: float) -> None:
        """Apply every answer ``seat`` has sent so far (it came by ``arrived``, monotonic).

        A frame's CPU time (and wall-clock time, for the game's budget) runs from when the clock
        of the requests it answers started (see :meth:`Seat.start_clock`) and is shared equally by
        its answers; an answer over its wall-clock limit, or whose frame used more CPU time than
        its allowance, is a ``timeout``.  Frames found waiting together share the time since the
        clock started equally, as one frame's answers do: the referee cannot tell how the bot's
        CPU time divides between frames it read late (a loaded machine), and charging it all to
        the first would time out a bot that answered each request in time.  A frame the link
        refuses (multi-part, oversized, not ZMTP) is charged to the oldest request, and stops the
        bot: nothing after it can be read."""
        link = seat.link
        while seat.pending and seat.link is link and link is not None:
            frames, refused = _waiting_frames(link, len(seat.pending))
            if frames:
                reading = seat.cpu_now()
                used_ns = (reading - seat.cpu_start) / len(frames)
                wall_ms = max(0.0, arrived - seat.clock_start) * 1000 / len(frames)
                seat.start_clock(max(arrived, seat.clock_start), reading)  # for the requests it still owes
                for frame in frames:
                    if not self._apply_frame(seat, link, frame, used_ns, wall_ms, arrived):
                        return  # a fault stopped the bot, and its other games with it
            if refused is not None:
                if seat.pending and seat.link is link:
                    self.fault(seat, next(iter(seat.pending.values())), refused)
                return
            if not frames:
                return

    def _apply_frame(self, seat: Seat, link: BotLink, frame: bytes, used_ns: float, wall_ms: float,
                     arrived: float) -> bool:
        """Apply one frame's answers, charged ``used_ns`` of CPU and ``wall_ms`` between them;
        False if a fault stopped the bot."""
        limits = self.config.limits
        answers = seat.answers(frame)
        cpu_ms = used_ns / 1e6 / len(answers)
        wall_ms /= len(answers)
        for p, action in answers:
            if not isinstance(action, ProtocolFault):
                if arrived > p.sent + p.wall_ms / 1000:
                    action = _late_fault(limits, p, arrived)
                elif used_ns > p.deadline_ms * 1_000_000:
                    action = _cpu_fault(limits, p, int(used_ns))
            if isinstance(action, ProtocolFault):
                self.fault(seat, p, action)
                if seat.link is not link:
                    return False
                continue
            g = p.game
            g.time_left_ms[p.seat] = max(0, g.time_left_ms[p.seat] - int(cpu_ms + 0.5))
            g.wall_left_ms[p.seat] = max(0, g.wall_left_ms[p.seat] - int(wall_ms + 0.5))
            cover = g.state.covering  # asked and timed like any decision, but none of the record's
            g.state.apply(action)
            if not cover:
                g.extra.append({"ms": round(cpu_ms, 2)})
            g.asked = None
        return True

    def _poller(self, waiting: list[Seat]) -> tuple[Any, dict[int, Seat]]:
        """A poll of the bots that owe an answer (for reading: a frame from another one waits to be
        read) and of those with output waiting (for writing), and whose descriptor is whose; one
        per such set of bots, made once (until a bot is restarted)."""
        if Seat.changes != self.polled:
            self.pollers.clear()
            self.polled = Seat.changes
        writing = tuple(seat.index for seat in self.seats if seat.link is not None and seat.link.writing)
        key = (tuple(seat.index for seat in waiting), writing)
        made = self.pollers.get(key)
        if made is None:
            poller, owners = select.poll(), {}
            for seat in self.seats:
                if seat.link is None:
                    continue
                events = (_READABLE if seat in waiting else 0) | (select.POLLOUT if seat.index in writing else 0)
                if events:
                    poller.register(seat.link.fileno(), events)
                    owners[seat.link.fileno()] = seat
            made = self.pollers[key] = (poller, owners)
        return made

    # -- faults -------------------------------------------------------------------------------

    def fault(self, seat: Seat, pending: Pending, fault: ProtocolFault) -> None:
        """``seat`` forfeits ``pending``'s game.  A bot that is dead, stuck or cut off (crash,
        timeout, ...) is stopped at once and forfeits every other game it plays; a bot that
        only sent a bad answer plays its other games to the end and is restarted after them."""
        seat.pending.pop(pending.request_id, None)
        fatal = fault.kind in FATAL or isinstance(fault, LinkFault)
        self.forfeit(seat, pending.game, pending.seat, pending.number, fault, fatal=fatal)

    def forfeit(self, seat: Seat, g: GameInPlay, i: int, number: int, fault: ProtocolFault, *, fatal: bool) -> None:
        """Seat ``i`` forfeits ``g`` for ``fault`` (the bot is told).  ``fatal``: the bot can not
        go on (it may still be thinking): it is stopped now and forfeits its other games too;
        else it plays them to their end and is restarted after them (at once if it has none).
        A game the seat already forfeited keeps its first fault (one frame can break the rules
        twice for one game: a bad answer to a request, then an answer too many), but the bot is
        told, and stopped if this fault is fatal."""
        if g.fault[i] is None:
            self.remove(g, i, seat, fault.kind.value, fault.fault.message, number)
        seat.send(messages.error(fault.kind, fault.fault.message))
        if fatal or not seat.playing:
            others = list(seat.playing)
            g.logs[i] = g.logs.get(i, "") + seat.stop(reason="fault")
            for other in others:
                self.remove(other, i, seat, fault.kind.value,
                            f"{fault.fault.message} (in game {g.game_id}, {COLLATERAL_NOTE})",
                            len(other.state.decisions), collateral=True)
        else:
            seat.retiring = True

    def remove(self, g: GameInPlay, i: int, seat: Seat, kind: str, message: str, number: int, *,
               collateral: bool = False) -> None:
        record = FaultRecord(i, kind, message, number, bot=seat.spec.name, collateral=collateral)
        g.fault[i] = record
        g.faults.append(record)
        if g.asked is not None and g.asked.seat == i:
            g.asked = None  # the request is void: the seat forfeits when play comes back to it
        seat.playing.discard(g)
        log.warning("%s (seat %d) faulted in %s: %s: %s", seat.spec.name, i, g.game_id, kind, message)

    # -- ending -------------------------------------------------------------------------------

    def finish(self, g: GameInPlay) -> GameReport:
        """Tell the bots, count faults towards disqualification, and make the game's record."""
        run, state = g.run, g.state
        result = state.result()
        for i, seat in enumerate(self.seats):
            seat.playing.discard(g)
            fault = g.fault[i]
            if seat.ready and seat.link is not None and g.generation[i] == seat.starts:
                own = None if fault is None or fault.kind == FaultKind.DISQUALIFIED.value else fault
                seat.send(messages.game_over(
                    g.game_id, result.to_json(), state.events(i, g.cursor[i]), g.forced[i],
                    None if own is None else own.fault,
                ))
            text = g.logs.get(i, "") + seat.take_stderr()
            g.logs[i] = kept_log(text, faulted=fault is not None, spent=run.log_chars[i])
            run.log_chars[i] += len(g.logs[i])
            counted = standing(fault is not None, [f.collateral for f in g.faults if f.seat == i])
            if tally(run, i, counted, self.config.faults_to_disqualify):
                log.warning("%s (seat %d) disqualified after %d faulty games in a row",
                            seat.spec.name, i, run.faults_in_a_row[i])

        record = make_record(
            self.game, state, seats=self.names, seed=g.seed,
            match={"index": 0, "game": g.index, "scores": run.match.scores}, extra=g.extra,
        )
        record["game_id"] = g.game_id
        record["faults"] = [f.to_json() for f in g.faults]
        record["logs"] = {str(k): v for k, v in g.logs.items() if v}
        record["starts"] = g.starts
        if self.config.uniform_timing:
            # Its bots were also asked cover decisions, which the decisions do not list (see
            # State.cover_hidden_skips): a seat's view of the game (arena replay --seat) shows them.
            record["covers"] = True
        report = GameReport(
            index=g.index, game_id=g.game_id, record=record, faults=g.faults, logs=g.logs,
            started=g.started, finished=now_iso(), duration_ms=int((time.monotonic() - g.t0) * 1000),
            starts=g.starts,
        )
        run.match.record(result_of(report))
        run.reports.append(report)
        run.starts = [a + b for a, b in zip(run.starts, g.starts)]
        for key in self.keys:
            self.last_report[key] = report
        if run.match.over:
            self.end_match(run)
        return report

    def end_match(self, run: MatchInPlay) -> None:
        for seat in self.seats:
            if seat.ready and seat.link is not None:
                seat.send(messages.match_over(run.match.scores, run.match.winner, run.match_id))
        self.ended.append(run)

    def match_report(self, run: MatchInPlay) -> MatchReport:
        return MatchReport(
            games=run.reports,
            scores=run.match.scores,
            winner=run.match.winner,
            disqualified=sorted(run.disqualified),
            starts=run.starts,
            hello_names=[s.hello_name for s in self.seats],
            startup_ms=[s.startup_ms for s in self.seats],
            concurrent=[s.concurrent for s in self.seats],
            batch=[s.batch for s in self.seats],
        )


def _waiting_frames(link: BotLink, most: int) -> tuple[list[bytes], LinkFault | None]:
    """Up to ``most`` frames (one per request owed: a bot has no more to send) that have come on
    ``link``, and the fault of a frame it refused after them, if one was."""
    frames: list[bytes] = []
    while len(frames) < most:
        try:
            frame = link.recv()
        except LinkFault as fault:
            return frames, fault
        if frame is None:
            break
        frames.append(frame)
    return frames, None


def _late_fault(limits: Limits, p: Pending, arrived: float) -> ProtocolFault:
    """A ``timeout`` for an answer that came after its request's wall-clock limit."""
    if p.wall_ms < limits.decision_wall_ms:
        return _game_time_fault(limits, cpu=False)
    return ProtocolFault(FaultKind.TIMEOUT, f"the bot answered {(arrived - p.sent) * 1000:.0f} ms after the request, "
                                            f"over the {p.wall_ms} ms of wall-clock time a decision may take")


def _cpu_fault(limits: Limits, p: Pending, used_ns: int) -> ProtocolFault:
    """A ``timeout`` for a decision that used more CPU time than it may."""
    if p.deadline_ms < limits.decision_ms:
        return _game_time_fault(limits, cpu=True)
    return ProtocolFault(FaultKind.TIMEOUT, f"the bot used {used_ns / 1e6:.0f} ms of CPU time on a decision "
                                            f"without answering in time (it may use {p.deadline_ms} ms)")


def _game_time_fault(limits: Limits, cpu: bool) -> ProtocolFault:
    """A ``timeout`` for a bot whose game budget ran out: its CPU time, or its wall-clock time."""
    if cpu:
        return ProtocolFault(FaultKind.TIMEOUT, f"the bot used up its {limits.game_ms} ms of CPU time for the game")
    return ProtocolFault(FaultKind.TIMEOUT, f"the bot used up its {limits.game_wall_ms} ms of wall-clock time for "
                                            "the game")


def result_of(report: GameReport) -> GameResult:
    r = report.record["result"]
    return GameResult(tuple(r["places"]), r["winner"], r["capped"], tuple(r["forfeits"]), r["reason"])
