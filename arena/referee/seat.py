"""One bot process at the table: its sandbox, its link, its handshake and the requests it owes."""

from __future__ import annotations

import hashlib
import logging
import select
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from arena import sandbox
from arena.bots.spec import BotSpec
from arena.referee.clock import BotClock, cpu_rate
from arena.referee.config import RefereeConfig
from arena.referee.inplay import Action, GameInPlay, Pending
from arena.referee.link import BotLink, Links
from protocol import codec, messages
from protocol.faults import FaultKind, ProtocolFault
from protocol.messages import (
    accept_action,
    accept_hello,
    decode_answers,
    decode_bot_message,
    same_json,
)
from protocol.text import describe
from protocol.transport import ENDPOINT_ENV, SOCKET_NAME, bot_endpoint

log = logging.getLogger("arena.referee")

HANDSHAKE_SLICE_MS = 50  # how often a bot awaited for its hello is checked for having exited
CHECK_AT_LEAST_S = 0.001  # the shortest wait between two looks at a thinking bot's CPU time




def bot_seed(seed: str, seat: int) -> str:
    """A seed a bot may use for its own randomness, that reveals nothing of the deal's seed."""
    return hashlib.sha256(f"bot:{seed}:{seat}".encode()).hexdigest()[:16]


class Seat:
    """One bot process at the table: its sandbox, its socket, and the requests it owes.

    ``index`` is the seat it holds in the current lineup (it may change between lineups)."""

    changes = 0  # bumped whenever any seat's socket is made or closed (pollers are then remade)

    def __init__(self, index: int, spec: BotSpec, links: Links, config: RefereeConfig, workroot: Path) -> None:
        self.index = index
        self.spec = spec
        self.links = links
        self.config = config
        self.workroot = workroot
        self.proc: sandbox.BotProcess | None = None
        self.link: BotLink | None = None
        self.endpoint_dir: Path | None = None
        self.ready = False  # handshake done and not stopped since
        self.lingered = False  # once did not exit within 0.5 s of a shutdown, and was killed
        self.retiring = False  # faulted: finishes the games it plays, then is restarted
        self.welcomed: tuple[list[str], int, list[str]] | None = None  # names, seat, variants
        self.hello_name: str | None = None
        self.concurrent = 1  # games at once, as its hello offered
        self.batch = False  # takes several requests in one frame (hello.batch)
        self.startup_fault: ProtocolFault | None = None
        self.startup_log = ""  # stderr of a bot that failed to start, for the next game's log
        self.starts = 0
        self.counted = 0  # starts already attributed to a game
        self.launched = 0.0
        self.startup_ms: int | None = None
        self.next_id = 0
        self.pending: dict[int, Pending] = {}  # requests made and not answered, oldest first
        self.outbox: list[tuple[dict[str, Any], Pending]] = []  # made and not sent yet (see Table.flush)
        self.clock: BotClock | None = None  # its processes' CPU time (None: not started)
        self.clock_start = 0.0  # when the clock of the requests it owes started (sent, or its last frame came)
        self.cpu_start = 0  # its CPU time then (ns)
        self.check_at = 0.0  # when to look at its CPU time next while it thinks
        self.playing: set[GameInPlay] = set()  # games it still plays in (started, not over, no fault)

    # -- process lifecycle --------------------------------------------------------------------

    def launch(self) -> None:
        """Open the private socket and start the bot; faults are kept for :meth:`handshake`."""
        self.ready = False
        self.retiring = False
        self.welcomed = None
        self.startup_fault = None
        self.endpoint_dir = Path(tempfile.mkdtemp(prefix=f"s{self.index}-", dir=self.workroot))
        endpoint = bot_endpoint(self.endpoint_dir)
        self.link = self.links.open(self.endpoint_dir / SOCKET_NAME, max_message_size=self.config.max_message_size)
        Seat.changes += 1
        self.starts += 1
        self.launched = time.monotonic()
        try:
            self.proc = sandbox.start_bot(
                self.spec.argv(endpoint),
                expose=[Path(p) for p in self.spec.expose],
                endpoint_dir=self.endpoint_dir,
                mode=self.config.sandbox_mode,
                limits=self.config.resources,
                env={**dict(self.spec.env), ENDPOINT_ENV: endpoint},  # also where argv can not say it
                name=self.spec.name,
            )
        except (OSError, sandbox.SandboxError) as exc:
            if isinstance(exc, sandbox.SandboxError) and self.config.sandbox_mode == "strict":
                raise
            self.startup_fault = ProtocolFault(FaultKind.STARTUP, f"could not start {self.spec.command[0]}: {exc}")

    def handshake(self, deadline: float) -> None:
        """Wait (until ``deadline``, monotonic) for the bot's connection and hello, and answer it."""
        link = self.link
        if self.startup_fault is not None or link is None:
            return
        frame: bytes | None = None
        fault: ProtocolFault | None = None
        poller = select.poll()
        # Wait in slices, so that a bot that dies before it connects (no dropped connection to
        # see) is noticed at once rather than at the deadline.
        while True:
            remaining = max(0, int((deadline - time.monotonic()) * 1000))
            fd = link.fileno()
            poller.register(fd, select.POLLIN)
            poller.poll(min(remaining, HANDSHAKE_SLICE_MS))
            poller.unregister(fd)
            try:
                frame = link.handshake()
            except ProtocolFault as refused:
                fault = refused
                break
            if frame is not None or remaining <= HANDSHAKE_SLICE_MS or link.dropped:
                break
            if self.proc is not None and self.proc.poll() is not None:
                try:
                    frame = link.handshake()  # a hello it sent just before exiting still counts
                except ProtocolFault as refused:
                    fault = refused
                break
        try:
            if fault is not None:
                raise fault
            if frame is None:
                raise self._silence_fault(f"while the referee waited up to {self.config.limits.startup_ms} ms for its hello")
            hello = _read_hello(frame, self.config.max_message_size, self.spec.name)
        except ProtocolFault as fault:
            # Whatever went wrong, the bot never became ready: a start-up fault, unless it speaks
            # another protocol version (which it must be told as such).
            self.startup_fault = fault if fault.kind == FaultKind.PROTOCOL_VERSION else ProtocolFault(
                FaultKind.STARTUP, f"{fault.kind.value}: {fault.fault.message}")
            if frame is not None:  # it said something: tell it what was wrong, as for any fault
                self.send(messages.error(fault.kind, fault.fault.message))
                self.send(messages.shutdown())  # as the protocol promises
                if self.proc is not None:
                    self.proc.wait(0.5)  # a well-behaved bot exits on its own (and says why on stderr)
            # Stop it now (a hung bot must not linger while the others play); keep what it said.
            self.startup_log += self.stop(reason="startup")
            return
        self.hello_name = hello.name
        self.concurrent = hello.concurrent
        self.batch = hello.batch
        self.startup_ms = int((time.monotonic() - self.launched) * 1000)
        self.clock = BotClock(self.proc) if self.proc is not None else None
        self.ready = True

    def send(self, msg: Any) -> bool:
        """Send one message; ``False`` if the bot can not take it (gone, or not reading)."""
        return self.link is not None and self.link.send(codec.dumps(msg))

    def welcome(self, game: str, names: list[str], variants: list[str]) -> None:
        """Tell the bot about the lineup it plays next: the game, its seat, the names, the variants
        (sent again whenever one of them changes, so that the welcome a bot holds is never stale)."""
        self.send(messages.welcome(game, self.index, names, variants, self.config.limits))

    def stop(self, reason: str | None = None) -> str:
        """Stop the bot and every process it started; return the stderr it left unread."""
        text = ""
        if self.link is not None and self.ready and reason is None:
            self.send(messages.shutdown())
        if self.proc is not None:
            if reason is None and self._wait_exit(0.5) is None and self.ready:
                self.lingered = True  # it did not exit on shutdown: it is killed (arena check says so)
            self.proc.stop(grace=0.2 if reason is None else 0.0)
            text = self.proc.take_stderr()
            self.proc = None
        if self.link is not None:
            self.links.close(self.link)
            self.link = None
            Seat.changes += 1
        if self.clock is not None:
            self.clock.close()
            self.clock = None
        if self.endpoint_dir is not None:
            shutil.rmtree(self.endpoint_dir, ignore_errors=True)
            self.endpoint_dir = None
        self.ready = False
        self.pending.clear()
        self.outbox.clear()
        return text

    def _wait_exit(self, timeout: float) -> int | None:
        """Wait for the bot to exit, meanwhile giving its socket what is still waiting for it
        (the shutdown, behind messages it was slow to read)."""
        assert self.proc is not None
        link = self.link
        deadline = time.monotonic() + timeout
        while link is not None and link.writing and not link.dropped:
            left = deadline - time.monotonic()
            if left <= 0:
                return self.proc.poll()
            poller = select.poll()
            poller.register(link.fileno(), select.POLLOUT)
            poller.poll(max(1, int(left * 1000)))
            link.flush()
        return self.proc.wait(max(0.0, deadline - time.monotonic()))

    def take_stderr(self) -> str:
        return self.proc.take_stderr() if self.proc is not None else ""

    # -- messages -----------------------------------------------------------------------------

    def _silence_fault(self, waited: str) -> ProtocolFault:
        """Why a bot said nothing: it left its messages unread, it died, its connection dropped,
        or it is just slow."""
        link = self.link
        if link is not None and link.failure is not None:
            return link.failure
        if self.proc is not None and link is not None and link.dropped:
            # A dying process drops its connection a moment before it is reaped (longer on a busy
            # machine): give it time, so that a crash is not taken for a closed socket.
            self.proc.wait(2.0)
        if self.proc is not None and self.proc.poll() is not None:
            return ProtocolFault(FaultKind.CRASH, f"the bot {_how_it_ended(self.proc.poll(), self.proc.sandboxed)} ({waited})")
        if link is not None and link.dropped:
            return ProtocolFault(
                FaultKind.DISCONNECTED,
                f"the bot's connection dropped while the bot was running: it closed its socket ({waited})")
        return ProtocolFault(FaultKind.TIMEOUT, f"the bot said nothing {waited}")

    def ask(self, request: dict[str, Any], legal: list[Action], deadline_ms: int) -> Action:
        """One request and its answer, outside any game (the benchmark's single round trip):
        the legal action chosen, or raise :class:`ProtocolFault`."""
        link = self.link
        assert link is not None and not self.pending
        if not self.send(request):
            raise self._silence_fault("when the referee sent it a request")
        deadline = time.monotonic() + deadline_ms / 1000
        poller = select.poll()
        poller.register(link.fileno(), select.POLLIN)
        while (frame := link.recv()) is None:
            left = deadline - time.monotonic()
            if left <= 0 or link.dropped:
                raise self._silence_fault(f"while the referee waited up to {deadline_ms} ms for its answer")
            poller.poll(max(1, int(left * 1000)))
        self.pending[request["id"]] = Pending(request["id"], None, 0, legal, 0.0, deadline_ms, deadline_ms, 0)  # type: ignore[arg-type]
        _, chosen = self.answers(frame)[0]
        self.pending.clear()
        if isinstance(chosen, ProtocolFault):
            raise chosen
        return chosen

    # -- its clock ----------------------------------------------------------------------------

    def cpu_now(self) -> int:
        """Its processes' CPU time in nanoseconds; for a bot whose processes are unknown (it was
        never started here, as in the benchmark's round trip), the wall clock's."""
        return self.clock.read() if self.clock is not None else time.monotonic_ns()

    def start_clock(self, now: float, reading: int) -> None:
        """The clock of every request it owes starts at ``now`` (monotonic), with its CPU time at
        ``reading``: when they were sent, or when its previous frame came (a bot answering several
        requests in turn is not charged for the time it spent on the others)."""
        self.clock_start = now
        self.cpu_start = reading
        self.schedule_check(now, reading)

    def schedule_check(self, now: float, reading: int) -> None:
        """When to look at its CPU time next: the first moment it could have used up the smallest
        CPU allowance of the requests it owes, running on every CPU there is."""
        if not self.pending:
            return
        left_ns = min(p.deadline_ms for p in self.pending.values()) * 1_000_000 - (reading - self.cpu_start)
        rate = cpu_rate() if self.clock is not None else 1
        self.check_at = now + max(left_ns / rate / 1e9, CHECK_AT_LEAST_S)

    def answers(self, frame: bytes) -> list[tuple[Pending, Action | ProtocolFault]]:
        """The pending requests a frame answers, each with the legal action it picks or the
        fault it is.  A frame that cannot be read is charged to the oldest pending request.

        An answer that names no pending request (late, a second answer, an invented id) is a
        ``stale`` fault: a bot must not send what was not asked.  An ``actions`` frame (from a
        bot that offered ``batch``) is read answer by answer, up to the first stale one.

        Nothing a bot sends may stop the referee: should reading the frame fail in a way the
        checks did not foresee (a bug), the frame counts as ``malformed``, charged as above, and
        the error is logged with its traceback.
        """
        before = dict(self.pending)
        try:
            return self._answers(frame)
        except Exception:
            log.exception("reading a frame of %s failed; it counts as malformed", self.spec.name)
            self.pending = before
            return [(next(iter(before.values())), ProtocolFault(
                FaultKind.MALFORMED, "the referee could not read this frame (an error of its own, logged)"))]

    def _answers(self, frame: bytes) -> list[tuple[Pending, Action | ProtocolFault]]:
        # Fast path: well-formed answers to pending requests that name legal actions are valid
        # by construction; anything else goes through the schema, which names the fault.
        if len(frame) <= self.config.max_message_size:
            try:
                msg = codec.loads(frame)
            except ValueError:
                msg = None
            if type(msg) is dict:
                kind = msg.get("type")
                if kind == "action" and len(msg) == 3:
                    picked = self._pick(msg)
                    if picked is not None:
                        del self.pending[picked[0].request_id]
                        return [picked]
                elif kind == "actions" and self.batch and len(msg) == 2 and type(msg.get("actions")) is list:
                    out, seen = [], set()
                    for entry in msg["actions"]:
                        picked = self._pick(entry) if type(entry) is dict and len(entry) == 2 else None
                        if picked is None or picked[0].request_id in seen:
                            break
                        seen.add(picked[0].request_id)
                        out.append(picked)
                    else:
                        if out:
                            for p, _ in out:
                                del self.pending[p.request_id]
                            return out
        oldest = next(iter(self.pending.values()))
        try:
            entries = decode_answers(frame, self.config.max_message_size, self.batch, limit=len(self.pending) + 1)
        except ProtocolFault as fault:
            return [(oldest, fault)]
        out = []
        for entry, fault in entries:
            # An answer that names no outstanding request (its id unknown, repeated or unreadable)
            # is stale; one that names one costs at most that request's game.
            request_id = entry.get("id") if type(entry) is dict else None
            if type(request_id) is float and request_id.is_integer():
                request_id = int(request_id)  # JSON Schema's integer admits 6.0
            pending = self.pending.pop(request_id, None) if type(request_id) is int else None
            if pending is None:
                ids = ", ".join(map(str, self.pending)) or "none"
                owed = next(iter(self.pending.values()), oldest)
                named = f"request {describe(request_id)}" if type(request_id) is int else "no request id"
                out.append((owed, ProtocolFault(
                    FaultKind.STALE, f"action for {named}, but the outstanding "
                                     f"request{'s are' if len(self.pending) > 1 else ' is'} {ids}")))
                break
            if fault is not None:
                out.append((pending, fault))
                continue
            try:
                out.append((pending, accept_action(entry, pending.request_id, pending.legal)))
            except ProtocolFault as fault:
                out.append((pending, fault))
        return out

    def _pick(self, answer: dict[str, Any]) -> tuple[Pending, Action] | None:
        """The pending request ``answer`` names and the referee's copy of the legal action it
        picks; ``None`` if either is missing (the slow path then names the fault)."""
        request_id = answer.get("id")
        pending = self.pending.get(request_id) if type(request_id) is int else None
        if pending is not None:
            chosen = answer.get("action")
            for candidate in pending.legal:
                if candidate == chosen and same_json(candidate, chosen):
                    return pending, candidate
        return None


def _read_hello(frame: bytes, max_size: int, name: str) -> messages.Hello:
    """The bot's hello, or :class:`ProtocolFault`; as for answers (:meth:`Seat.answers`), an
    error of the referee's own while reading it is a ``malformed`` frame, never a crash."""
    try:
        return accept_hello(decode_bot_message(frame, max_size, ("hello",)))
    except ProtocolFault:
        raise
    except Exception:
        log.exception("reading the hello of %s failed; it counts as malformed", name)
        raise ProtocolFault(FaultKind.MALFORMED, "the referee could not read this frame (an error of its own, logged)") from None


def _how_it_ended(status: int | None, sandboxed: bool) -> str:
    """A bot's end in words: the signal that killed it, named the same whether it ran directly
    (status -9) or under bubblewrap, which passes a signal death on as 128 + the signal."""
    number = -status if status is not None and status < 0 else None
    if sandboxed and status is not None and 128 < status < 128 + signal.NSIG:
        number = status - 128
    if number is None:
        return f"exited with status {status}"
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    hint = " (its memory or CPU-time limit, unless something else sent it)" if number == signal.SIGKILL else ""
    return f"was killed by {name}{hint}"
