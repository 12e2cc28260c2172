"""The referee: plays one match (one or more games at one table) between bot programs.

Each bot is started once per match, in its own sandbox, and stays warm across the match's
games; it is restarted only after a fault.  Every decision request carries the seat's own
observation, the events it has not seen yet and the legal actions; every reply is checked
against the protocol schema and the legal set.  Decisions with a single legal action are
applied without a round trip and reported to the bot in its next message (``forced``).

A bot's misbehaviour is an *outcome*, never an exception: the faulting bot forfeits that game
(it is eliminated there and ranks below every bot that did not fault), the fault is recorded
with its kind and a message for the author, the game goes on for the others, and the bot is
restarted for the next game.  A bot that faults in several games in a row is disqualified
from the rest of the match.

Matches of one lineup can be played at once (:meth:`Session.play_matches`): when every bot
offered it in its hello (``concurrent``), up to ``RefereeConfig.concurrent`` games are in play,
their requests interleaved, so that each bot process wakes once for a burst of decisions instead
of once per decision.  The referee is still one thread: it advances every game up to its next
request, sends each bot its requests (in one frame if the bot offered ``batch``), then waits on
all the bots at once until every answer is in (:class:`_Table`).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import logging
import os
import shlex
import signal
import shutil
import stat
import sys
import tempfile
import math
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import zmq

from arena import sandbox
from arena.errors import UnknownBot
from arena.games import Game, GameConfig, GameResult, SeededChance, State
from arena.games.match import Match
from arena.games.record import make_record
from arena.referee.standing import FAULT, standing, step
from protocol import codec
from protocol.faults import Fault, FaultKind, ProtocolFault
from protocol.messages import (
    DEFAULT_MAX_MESSAGE_SIZE,
    Limits,
    accept_action,
    accept_hello,
    decode_answers,
    decode_bot_message,
    same_json,
)
from protocol import messages
from protocol.transport import ENDPOINT_ENV, SOCKET_NAME, Channel, bot_endpoint

log = logging.getLogger("arena.referee")

CUTOFF_FACTOR = 8
DEFAULT_FAULTS_TO_DISQUALIFY = 3  # faulty games in a row that put a bot out of the rest of a match
HANDSHAKE_SLICE_MS = 50  # how often a bot awaited for its hello is checked for having exited
# Faults after which a bot can not go on: it is dead, stuck, cut off, or its answers can no longer
# be matched to requests (stale).  It is stopped at once, and forfeits every game it plays.
FATAL = frozenset({FaultKind.TIMEOUT, FaultKind.CRASH, FaultKind.DISCONNECTED, FaultKind.TOO_LARGE,
                   FaultKind.STALE})
Action = dict[str, Any]
ENDPOINT = "{endpoint}"


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to run one bot: its display name, its command and the files it may read."""

    name: str
    command: tuple[str, ...]
    expose: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    def argv(self, endpoint: str) -> list[str]:
        """The command line: ``{endpoint}`` in the command is replaced, else the endpoint is appended."""
        if ENDPOINT in self.command:
            return [endpoint if word == ENDPOINT else word for word in self.command]
        return [*self.command, endpoint]


def bot_spec(target: str, name: str | None = None) -> BotSpec:
    """A :class:`BotSpec` from a path to a script (``.py``, ``.js``) or a command line.

    A Python script runs under this interpreter's real path (a pyenv shim under a 0700 home
    can not be executed by the sandbox's uid); a JavaScript file runs under ``node`` and may
    read its own directory (for ``node_modules``).
    """
    path = Path(target)
    if path.is_file():
        path = path.resolve()
        label = name or path.stem
        if path.suffix == ".py":
            return BotSpec(label, (os.path.realpath(sys.executable), str(path)), (str(path),))
        if path.suffix in (".js", ".mjs", ".cjs"):
            node = shutil.which("node")
            if node is None:
                raise UnknownBot(f"{target} is a JavaScript bot but node is not installed")
            return BotSpec(label, (os.path.realpath(node), str(path)), (str(path.parent),))
        if os.access(path, os.X_OK):
            return BotSpec(label, (str(path),), (str(path),))
        raise UnknownBot(f"{target}: not a .py or .js script, and not executable")
    words = shlex.split(target)
    if not words or (len(words) == 1 and ("/" in target or target.endswith((".py", ".js")))):
        raise UnknownBot(f"no bot at {target!r}: give a path to a script or a command")
    program = shutil.which(words[0])
    if program is None:
        raise UnknownBot(f"no bot at {target!r}: {words[0]!r} is neither a file nor a command on PATH")
    # An argument that is a path goes to the bot as an absolute one: the bot runs in a folder of
    # its own, where ``python3 bots/mine.py`` would name nothing.
    args = [str(Path(w).resolve()) if Path(w).exists() else w for w in words[1:]]
    expose = tuple(arg for arg, word in zip(args, words[1:]) if Path(word).exists())
    # Named after its script (the first argument that is a file: ``python3 bot.py --fast`` is
    # "bot"), else after the program.
    script = next((w for w in words[1:] if Path(w).is_file()), words[0])
    return BotSpec(name or Path(script).stem, (os.path.realpath(program), *args), expose)


DEFAULT_CONCURRENT = 16  # games of a lineup in play at once unless configured (a tournament's ``concurrent``)


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """Policies of the referee; every number has a sane default and can be changed."""

    limits: Limits = field(default_factory=Limits)
    sandbox_mode: str = "auto"
    resources: sandbox.Limits = field(default_factory=sandbox.Limits)
    faults_to_disqualify: int = DEFAULT_FAULTS_TO_DISQUALIFY
    auto_single: bool = True
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    concurrent: int = DEFAULT_CONCURRENT  # games of one lineup in play at once, for bots that offer as many


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A bot's fault in one game: what happened, in words its author can act on."""

    seat: int
    bot: str
    kind: str
    message: str
    decision: int | None = None
    # A forfeit because the bot was stopped for a fault in another game played at the same
    # time: it does not count towards disqualification (see arena.referee.standing).
    collateral: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "kind": self.kind, "message": self.message,
                "decision": self.decision, "collateral": self.collateral}


@dataclass(slots=True)
class GameReport:
    """One finished game: its full record (faults and stderr logs included) and timings."""

    index: int
    game_id: str
    record: dict[str, Any]
    faults: list[FaultRecord]
    logs: dict[int, str]
    started: str
    finished: str
    duration_ms: int
    starts: list[int] = field(default_factory=list)  # bot processes started for this game, per seat


@dataclass(slots=True)
class MatchReport:
    """A finished match: its games in order, the match points and who was disqualified."""

    games: list[GameReport]
    scores: list[int]
    winner: int | None
    disqualified: list[int]
    starts: list[int]
    hello_names: list[str | None]
    startup_ms: list[int | None]
    concurrent: list[int] = field(default_factory=list)  # games at once each bot offered
    batch: list[bool] = field(default_factory=list)  # whether each bot took requests in batches


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def bot_seed(seed: str, seat: int) -> str:
    """A seed a bot may use for its own randomness, that reveals nothing of the deal's seed."""
    return hashlib.sha256(f"bot:{seed}:{seat}".encode()).hexdigest()[:16]


class Seat:
    """One bot process at the table: its sandbox, its socket, and the requests it owes.

    ``index`` is the seat it holds in the current lineup (it may change between lineups)."""

    changes = 0  # bumped whenever any seat's socket is made or closed (pollers are then remade)

    def __init__(self, index: int, spec: BotSpec, context: zmq.Context, config: RefereeConfig, workroot: Path) -> None:
        self.index = index
        self.spec = spec
        self.context = context
        self.config = config
        self.workroot = workroot
        self.proc: sandbox.BotProcess | None = None
        self.channel: Channel | None = None
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
        self.pending: dict[int, _Pending] = {}  # requests made and not answered, oldest first
        self.outbox: list[tuple[dict[str, Any], _Pending]] = []  # made and not sent yet (see _Table.flush)
        self.last_frame = 0.0  # when its last frame was read: the clock of a queued request starts there
        self.playing: set[_Game] = set()  # games it still plays in (started, not over, no fault)

    # -- process lifecycle --------------------------------------------------------------------

    def launch(self) -> None:
        """Bind the private socket and start the bot; faults are kept for :meth:`handshake`."""
        self.ready = False
        self.retiring = False
        self.welcomed = None
        self.startup_fault = None
        self.endpoint_dir = Path(tempfile.mkdtemp(prefix=f"s{self.index}-", dir=self.workroot))
        endpoint = bot_endpoint(self.endpoint_dir)
        # libzmq cuts a connection off only far above the bound, so that an oversized message
        # usually arrives and is reported precisely as too_large rather than as a drop.
        self.channel = Channel.bind(
            endpoint, max_message_size=CUTOFF_FACTOR * self.config.max_message_size, context=self.context)
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
        """Wait (until ``deadline``, monotonic) for the bot's hello and answer it."""
        if self.startup_fault is not None or self.channel is None:
            return
        # Wait in slices, so that a bot that dies before it connects (no dropped connection to
        # see) is noticed at once rather than at the deadline.
        while True:
            remaining = max(0, int((deadline - time.monotonic()) * 1000))
            frame = self.channel.recv_bytes(min(remaining, HANDSHAKE_SLICE_MS))
            if frame is not None or remaining <= HANDSHAKE_SLICE_MS or self.channel.dropped:
                break
            if self.proc is not None and self.proc.poll() is not None:
                frame = self.channel.recv_bytes(0)  # a hello it sent just before exiting still counts
                break
        if self.endpoint_dir is not None:
            # Its one connection is made: with the socket's name gone nobody can open another
            # (see Channel; one opened before this is caught by refuse_intruder).
            with contextlib.suppress(OSError):
                os.unlink(self.endpoint_dir / SOCKET_NAME)
        try:
            if frame is None:
                raise self._silence_fault(f"while the referee waited up to {self.config.limits.startup_ms} ms for its hello")
            hello = accept_hello(decode_bot_message(frame, self.config.max_message_size, ("hello",)))
        except ProtocolFault as fault:
            # Whatever went wrong, the bot never became ready: a start-up fault, unless it speaks
            # another protocol version (which it must be told as such).
            self.startup_fault = fault if fault.kind == FaultKind.PROTOCOL_VERSION else ProtocolFault(
                FaultKind.STARTUP, f"{fault.kind.value}: {fault.fault.message}")
            if frame is not None:  # it said something: tell it what was wrong, as for any fault
                self.channel.send(messages.error(fault.kind, fault.fault.message))
                self.channel.send(messages.shutdown())  # as the protocol promises
                if self.proc is not None:
                    self.proc.wait(0.5)  # a well-behaved bot exits on its own (and says why on stderr)
            # Stop it now (a hung bot must not linger while the others play); keep what it said.
            self.startup_log += self.stop(reason="startup")
            return
        self.hello_name = hello.name
        self.concurrent = hello.concurrent
        self.batch = hello.batch
        self.startup_ms = int((time.monotonic() - self.launched) * 1000)
        self.ready = True

    def refuse_intruder(self) -> None:
        """A ready bot that opened a second connection (see Channel) is stopped now, with a
        start-up fault, before the others have finished starting."""
        if not self.ready or self.channel is None or len(self.channel.watched) < 2:
            return
        if self.channel.watched[1].poll(0):
            self.channel.note_drop()
        if self.channel.intruded:
            fault = self._silence_fault("at start-up")
            self.startup_fault = ProtocolFault(FaultKind.STARTUP, f"{fault.kind.value}: {fault.fault.message}")
            self.startup_log += self.stop(reason="startup")

    def welcome(self, game: str, names: list[str], variants: list[str]) -> None:
        """Tell the bot about the lineup it plays next: the game, its seat, the names, the variants
        (sent again whenever one of them changes, so that the welcome a bot holds is never stale)."""
        assert self.channel is not None
        self.channel.send(messages.welcome(game, self.index, names, variants, self.config.limits))

    def stop(self, reason: str | None = None) -> str:
        """Stop the bot and every process it started; return the stderr it left unread."""
        text = ""
        if self.channel is not None and self.ready and reason is None:
            self.channel.send(messages.shutdown())
        if self.proc is not None:
            if reason is None and self.proc.wait(0.5) is None and self.ready:
                self.lingered = True  # it did not exit on shutdown: it is killed (arena check says so)
            self.proc.stop(grace=0.2 if reason is None else 0.0)
            text = self.proc.take_stderr()
            self.proc = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None
            Seat.changes += 1
        if self.endpoint_dir is not None:
            shutil.rmtree(self.endpoint_dir, ignore_errors=True)
            self.endpoint_dir = None
        self.ready = False
        self.pending.clear()
        self.outbox.clear()
        return text

    def take_stderr(self) -> str:
        return self.proc.take_stderr() if self.proc is not None else ""

    # -- messages -----------------------------------------------------------------------------

    def _silence_fault(self, waited: str) -> ProtocolFault:
        """Why a bot said nothing: it died, its connection dropped, or it is just slow; or it
        opened a second connection (see Channel), which is a fault whatever it says."""
        if self.channel is not None and self.channel.intruded:
            return ProtocolFault(
                FaultKind.DISCONNECTED,
                f"the bot opened a second connection to its socket; one is allowed ({waited})",
            )
        if self.proc is not None and self.channel is not None and self.channel.dropped:
            self.proc.wait(0.5)  # a dying process drops its connection a moment before it is reaped
        if self.proc is not None and self.proc.poll() is not None:
            return ProtocolFault(FaultKind.CRASH, f"the bot {_how_it_ended(self.proc.poll(), self.proc.sandboxed)} ({waited})")
        if self.channel is not None and self.channel.dropped:
            return ProtocolFault(
                FaultKind.DISCONNECTED,
                f"the bot's connection dropped while the bot was running: it closed its socket, or sent "
                f"a message over {CUTOFF_FACTOR * self.config.max_message_size} bytes ({waited})",
            )
        return ProtocolFault(FaultKind.TIMEOUT, f"the bot said nothing {waited}")

    def ask(self, request: dict[str, Any], legal: list[Action], deadline_ms: int) -> Action:
        """One request and its answer, outside any game (the benchmark's single round trip):
        the legal action chosen, or raise :class:`ProtocolFault`."""
        assert self.channel is not None and not self.pending
        if not self.channel.send(request):
            raise self._silence_fault("when the referee sent it a request")
        frame = self.channel.recv_bytes(deadline_ms)
        if frame is None:
            raise self._silence_fault(f"while the referee waited up to {deadline_ms} ms for its answer")
        self.pending[request["id"]] = _Pending(request["id"], None, 0, legal, 0.0, deadline_ms, 0)  # type: ignore[arg-type]
        _, chosen = self.answers(frame)[0]
        self.pending.clear()
        if isinstance(chosen, ProtocolFault):
            raise chosen
        return chosen

    def due(self, pending: _Pending) -> float:
        """When ``pending`` times out (monotonic).  Its clock starts when it was sent or when the
        bot's previous frame came, whichever is later: a bot answering several requests in turn
        is not charged for the time it spent on the others."""
        return max(pending.sent, self.last_frame) + pending.deadline_ms / 1000

    def answers(self, frame: bytes) -> list[tuple[_Pending, Action | ProtocolFault]]:
        """The pending requests a frame answers, each with the legal action it picks or the
        fault it is.  A frame that cannot be read is charged to the oldest pending request.

        An answer that names no pending request (late, a second answer, an invented id) is a
        ``stale`` fault: a bot must not send what was not asked.  An ``actions`` frame (from a
        bot that offered ``batch``) is read answer by answer, up to the first stale one.
        """
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
                named = f"request {request_id}" if type(request_id) is int else "no request id"
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

    def _pick(self, answer: dict[str, Any]) -> tuple[_Pending, Action] | None:
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


@dataclass(slots=True, eq=False)
class _Pending:
    """A request a bot owes an answer to."""

    request_id: int
    game: _Game
    seat: int
    legal: list[Action]
    sent: float
    deadline_ms: int
    number: int  # the decision's index in the game


COLLATERAL_NOTE = "played at the same time; the bot was stopped"  # says why in a collateral fault's message


# Of a game without a fault, the stored stderr is its last 8 KB (a faulted game keeps up to the
# sandbox's 64 KB tail, for its traceback): a chatty bot otherwise stored 64 KB a game, and a long
# tournament's database grew by gigabytes of chatter.
CLEAN_GAME_LOG_CHARS = 8 * 1024
# A seat's stored stderr over one match is bounded too: a bot that faulted every other game (never
# disqualified) could store 64 KB a game, twice (in the record and in the logs table).  Once a seat
# has kept MATCH_LOG_CHARS in a match, each of its later games keeps only its last SPENT_LOG_CHARS,
# which still holds a traceback's last lines.
MATCH_LOG_CHARS = 256 * 1024
SPENT_LOG_CHARS = 2 * 1024


def _kept_log(text: str, *, faulted: bool, spent: int) -> str:
    """The tail of one game's stderr to store, given what the seat has kept so far in its match."""
    if faulted:
        limit, why = len(text), ""
    else:
        limit, why = CLEAN_GAME_LOG_CHARS, f"a game without a fault keeps the last {CLEAN_GAME_LOG_CHARS}"
    left = max(MATCH_LOG_CHARS - spent, SPENT_LOG_CHARS)
    if left < limit:
        limit = left
        why = (f"this bot had stored {spent} of the {MATCH_LOG_CHARS} characters of stderr a match keeps, "
               f"so this game keeps at most its last {left}")
    if len(text) <= limit:
        return text
    kept = text[-limit:]
    return f"[{len(text) - len(kept)} earlier characters not kept: {why} of the bot's stderr]\n{kept}"


def _tally(run: "_Run", seat: int, counted: str, threshold: int) -> bool:
    """Count one game of ``seat`` (its ``standing``) towards disqualification; True if a fault
    of this game disqualifies it."""
    was_out = seat in run.disqualified
    run.faults_in_a_row[seat], out = step(counted, run.faults_in_a_row[seat], was_out, threshold)
    if out:
        run.disqualified.add(seat)
    return out and not was_out and counted == FAULT


@dataclass(slots=True, eq=False)
class _Run:
    """One match being played: its games so far and who is out of it."""

    number: int
    match: Match
    seed: str
    match_id: str
    reports: list[GameReport] = field(default_factory=list)
    disqualified: set[int] = field(default_factory=set)
    faults_in_a_row: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    log_chars: list[int] = field(default_factory=list)  # stderr kept so far per seat (see _kept_log)


@dataclass(slots=True, eq=False)
class _Game:
    """One game in play, and what each seat has been told of it."""

    run: _Run
    state: State
    index: int
    game_id: str
    seed: str
    started: str
    t0: float
    fault: list[FaultRecord | None]
    cursor: list[int]
    forced: list[list[dict[str, Any]]]
    time_left_ms: list[int]
    generation: list[int]  # each seat's process (its start count) that got game_start; 0: none
    starts: list[int]
    extra: list[dict[str, Any]] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    logs: dict[int, str] = field(default_factory=dict)
    asked: _Pending | None = None  # the request it waits on, if any


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """A match to play: its seed, its id, and the results of its games already stored."""

    seed: str
    match_id: str = "match"
    done: tuple[GameResult, ...] = ()
    # For each game in ``done``, each seat's standing (see arena.referee.standing): a resumed match
    # carries on counting faults in a row where it stopped.
    standings: tuple[tuple[str, ...], ...] = ()
    starter: int | None = None  # the seat that starts the match's first game, if not the config's


class Referee:
    """Plays matches between bot programs; one instance per process (it owns a ZeroMQ context)."""

    def __init__(self, config: RefereeConfig | None = None) -> None:
        self.config = config or RefereeConfig()
        self.context = zmq.Context()

    def close(self) -> None:
        # destroy, not term: a socket left open (say, by Ctrl-C while a bot was being started)
        # would make term() wait for it for ever.  Every socket is this thread's, so closing
        # them here is safe.
        self.context.destroy(linger=0)

    def __enter__(self) -> "Referee":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def session(self) -> "Session":
        """Keep bot processes warm across several matches (e.g. the seat rotations of a table)."""
        return Session(self)

    def play_match(self, game: Game, config: GameConfig, bots: list[BotSpec], **kwargs: Any) -> MatchReport:
        """Play one match in a session of its own: every bot is started for it and stopped after."""
        with self.session() as session:
            return session.play_match(game, config, bots, **kwargs)


WORKROOT_PREFIX = "arena-ref-"
OWNER_FILE = "referee.pid"  # in the folder, not its name: every byte of a socket's path counts


# .../arena-ref-XXXXXXXX/s0-XXXXXXXX/bot.sock after the temporary folder; an ipc path holds 107 bytes.
_SOCKET_SUFFIX = 40
_MAX_SOCKET_PATH = 107


def _socket_parent() -> str:
    """The temporary folder, or /tmp where it is too deep for a socket path (a long $TMPDIR)."""
    base = tempfile.gettempdir()
    if len(os.fsencode(base)) + _SOCKET_SUFFIX > _MAX_SOCKET_PATH and os.access("/tmp", os.W_OK):
        return "/tmp"
    return base


def _remove_stale_workroots() -> None:
    """Remove the socket folders of referees that were killed before they could (``kill -9``):
    on a shared machine they would pile up in /tmp by the hundred."""
    for path in Path(_socket_parent()).glob(f"{WORKROOT_PREFIX}*"):
        pid = _owner_pid(path)
        if pid is None:
            continue  # not ours to judge: no owner written (yet), or not made by a referee of ours
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except PermissionError:
            pass  # alive, another user's


def _owner_pid(path: Path) -> int | None:
    """The pid in a socket folder's owner file, if the folder and the file are what a referee
    of this user makes: a real folder and a regular file, both ours.  Anyone can plant things in
    /tmp (a FIFO there would block a plain read for ever, and every later run with it)."""
    uid = os.geteuid()
    try:
        folder = os.lstat(path)
        if not stat.S_ISDIR(folder.st_mode) or folder.st_uid != uid:
            return None
        fd = os.open(path / OWNER_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != uid:
            return None
        return int(os.read(fd, 32))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


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


class Session:
    """Bot processes shared by consecutive matches: each bot is started once and restarted only
    after a fault.  A bot's seat may change from one lineup to the next (``welcome`` and
    ``game_start`` say which); two seats of one match never share a process.

    Matches of one lineup can be played at the same time (:meth:`play_matches`): when every bot
    offered it in its hello, up to ``RefereeConfig.concurrent`` games are in play at once, their
    requests interleaved, so a bot process wakes once for several decisions.
    """

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.config = referee.config
        self.players: dict[tuple[BotSpec, int], Seat] = {}
        _remove_stale_workroots()
        sandbox.reap_orphans()
        sandbox.reap_stale_groups()
        sandbox.remove_stale_workdirs()
        self.workroot = Path(tempfile.mkdtemp(prefix=WORKROOT_PREFIX, dir=_socket_parent()))
        os.chmod(self.workroot, 0o711)  # bots' uids must reach their own socket directory inside
        (self.workroot / OWNER_FILE).write_text(str(os.getpid()))
        self.last_report: dict[tuple[BotSpec, int], GameReport] = {}
        self.lingered: set[str] = set()  # bots that did not exit on shutdown when the session closed

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every bot; stderr written after its last game still goes into that game's log."""
        for key, seat in self.players.items():
            tail = seat.stop()
            if seat.lingered:
                self.lingered.add(seat.spec.name)
            report = self.last_report.get(key)
            if tail and report is not None:
                report.logs[seat.index] = report.logs.get(seat.index, "") + tail
                report.record["logs"][str(seat.index)] = report.logs[seat.index]
        self.players.clear()
        shutil.rmtree(self.workroot, ignore_errors=True)

    def play_match(
        self,
        game: Game,
        config: GameConfig,
        bots: list[BotSpec],
        *,
        seed: str,
        match_id: str = "match",
        done: list[Any] | None = None,
        on_game: Callable[[GameReport], None] | None = None,
    ) -> MatchReport:
        """Play a match: games until a seat reaches the game's points (Reactor: one game).

        ``done`` holds the results (:class:`~arena.games.base.GameResult`) of games of this
        match already played and stored (a resumed match goes on from there); ``on_game`` is
        called as soon as each game is over, so a caller can store it before the next begins.
        """
        plan = MatchPlan(seed, match_id, tuple(done or ()))
        hook = None if on_game is None else (lambda _number, report: on_game(report))
        return self.play_matches(game, config, bots, [plan], on_game=hook)[0]

    def play_matches(
        self,
        game: Game,
        config: GameConfig,
        bots: list[BotSpec],
        plans: list[MatchPlan],
        *,
        on_game: Callable[[int, GameReport], None] | None = None,
        on_match: Callable[[int, MatchReport], None] | None = None,
    ) -> list[MatchReport]:
        """Play several matches of one lineup (the same bots in the same seats), as many games
        at once as the bots offered; ``on_game(i, report)`` and ``on_match(i, report)`` are
        called, with the index of the plan, as soon as each game and each match is over."""
        if len(bots) != config.players:
            raise ValueError(f"{len(bots)} bots for {config.players} seats")
        game.check_config(config)
        names = [b.name for b in bots]
        keys = [(spec, bots[:i].count(spec)) for i, spec in enumerate(bots)]
        seats = []
        for index, key in enumerate(keys):
            if key not in self.players:
                self.players[key] = Seat(index, key[0], self.referee.context, self.config, self.workroot)
            seat = self.players[key]
            seat.index = index
            if seat.playing or seat.pending:  # left over by a table that ended in an error
                seat.playing.clear()
                seat.pending.clear()
                seat.outbox.clear()
                seat.retiring = True  # its answers to that table may still come: start afresh
            seats.append(seat)
        n = len(seats)
        runs = [_Run(i, Match(game, config if plan.starter is None else replace(config, starter=plan.starter),
                              list(plan.done)), plan.seed, plan.match_id,
                     faults_in_a_row=[0] * n, starts=[0] * n, log_chars=[0] * n) for i, plan in enumerate(plans)]
        for run, plan in zip(runs, plans):
            for standings in plan.standings:
                for seat, counted in enumerate(standings):
                    _tally(run, seat, counted, self.config.faults_to_disqualify)
        table = _Table(self, game, seats, names, keys, list(config.variants))
        with _fewer_collections():
            return self._play(table, runs, on_game, on_match)

    def _play(self, table: _Table, runs: list[_Run], on_game: Callable[[int, GameReport], None] | None,
              on_match: Callable[[int, MatchReport], None] | None) -> list[MatchReport]:
        """Start games, advance each to its next request, wait for answers; until all are over."""
        seats = table.seats
        reports: list[MatchReport | None] = [None] * len(runs)
        queue = deque(runs)
        live: list[_Game] = []
        while queue or live:
            table.start_games(queue, live)
            if not live and queue and not queue[0].match.over:
                raise RuntimeError("no game could be started")  # a bug: nothing is in play to wait for
            for g in list(live):
                if g.asked is None and table.advance(g):
                    live.remove(g)
                    run = g.run
                    report = table.finish(g)
                    if on_game is not None:
                        on_game(run.number, report)
                    if not run.match.over:
                        queue.append(run)
            for run in table.ended:
                reports[run.number] = table.match_report(run)
                if on_match is not None:
                    on_match(run.number, reports[run.number])  # type: ignore[arg-type]
            table.ended.clear()
            table.flush()
            # Every answer is awaited before the games move on: the bots then get their next
            # requests together, in as few frames and wake-ups as possible.
            while any(seat.pending for seat in seats):
                table.collect()
        return reports  # type: ignore[return-value]


@contextmanager
def _fewer_collections() -> Iterator[None]:
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


class _Table:
    """The games of one lineup in play: starts them, asks the bots, and turns faults into forfeits."""

    def __init__(self, session: Session, game: Game, seats: list[Seat], names: list[str],
                 keys: list[tuple[BotSpec, int]], variants: list[str]) -> None:
        self.session = session
        self.config = session.config
        self.game = game
        self.seats = seats
        self.names = names
        self.keys = keys
        self.variants = variants
        self.ended: list[_Run] = []
        self.limit = self.concurrency()
        self.pollers: dict[tuple[int, ...], zmq.Poller] = {}
        self.polled = -1  # the value of Seat.changes the pollers were made for

    # -- starting games -----------------------------------------------------------------------

    def concurrency(self) -> int:
        """Games at once: what every bot offered (a bot not started yet counts as 1), at most
        ``RefereeConfig.concurrent``."""
        return max(1, min(self.config.concurrent, *(seat.concurrent if seat.ready else 1 for seat in self.seats)))

    def start_games(self, queue: deque[_Run], live: list[_Game]) -> None:
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
        for number, seat in enumerate(fresh):
            seat.handshake(deadline)
            for earlier in fresh[:number + 1]:  # a second connection opened since its hello
                earlier.refuse_intruder()
        self.limit = self.concurrency()
        self.welcome(seats)

    def welcome(self, seats: list[Seat]) -> None:
        for seat in seats:
            if seat.ready and seat.welcomed != (self.names, seat.index, self.variants):
                seat.welcome(self.game.name, self.names, self.variants)
                seat.welcomed = (self.names, seat.index, self.variants)

    def start_game(self, run: _Run) -> _Game:
        match = run.match
        config = match.next_config()
        index = len(match.results)
        seed = f"{run.seed}:{index}"
        n = len(self.seats)
        g = _Game(
            run=run, state=self.game.new_game(config, SeededChance(seed)), index=index,
            game_id=f"{run.match_id}-g{index}", seed=seed, started=now_iso(), t0=time.monotonic(),
            fault=[None] * n, cursor=[0] * n, forced=[[] for _ in range(n)],
            time_left_ms=[self.config.limits.game_ms] * n, generation=[0] * n,
            starts=[s.starts - s.counted for s in self.seats],
        )
        for i, seat in enumerate(self.seats):
            seat.counted = seat.starts  # each start is counted once, in the next game started
            if i in run.disqualified:
                g.fault[i] = FaultRecord(i, seat.spec.name, FaultKind.DISQUALIFIED.value,
                                         "disqualified from this match after faults in several games in a row")
            elif seat.startup_fault is not None:
                record = FaultRecord(i, seat.spec.name, seat.startup_fault.kind.value, seat.startup_fault.fault.message)
                g.fault[i] = record
                g.faults.append(record)
                g.logs[i], seat.startup_log = seat.startup_log, ""
                seat.startup_fault = None  # reported once; the bot is started again for the next game
                log.warning("%s (seat %d) faulted in %s: %s: %s", seat.spec.name, i, g.game_id, record.kind,
                            record.message)
            elif seat.ready and seat.channel is not None:
                seat.channel.send(messages.game_start(
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

    def advance(self, g: _Game) -> bool:
        """Play ``g`` up to its next request to a bot (sent) or its end; True once it is over."""
        state = g.state
        limits = self.config.limits
        auto_single = self.config.auto_single
        while (decision := state.to_move()) is not None:
            i = decision.seat
            fault = g.fault[i]
            if fault is not None:
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
            if g.time_left_ms[i] <= 0:
                # Its last answer came as its game time ran out (a deadline is kept to the
                # millisecond): no time is left to ask it anything, so it forfeits now, as any
                # fault does, but not as a fatal one: it is waiting, not thinking.
                fault = ProtocolFault(FaultKind.TIMEOUT, f"the bot used up its {limits.game_ms} ms for the game")
                self.forfeit(seat, g, i, len(state.decisions), fault, fatal=False)
                continue
            deadline_ms = min(limits.decision_ms, g.time_left_ms[i])
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
            }
            g.cursor[i] = len(state.log)
            g.forced[i] = []
            pending = _Pending(seat.next_id, g, i, legal, 0.0, deadline_ms, len(state.decisions))
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
            sent = time.monotonic()
            for _, pending in outbox:
                pending.sent = sent
            channel = seat.channel
            if channel is not None and seat.batch and len(outbox) > 1:
                ok = channel.send(messages.requests(request for request, _ in outbox))
            else:
                ok = channel is not None and all(channel.send(request) for request, _ in outbox)
            if not ok and seat.pending:  # no peer: it died or closed its socket
                # Charged, like any silence, to the oldest request it owes (what it was working on).
                self.fault(seat, next(iter(seat.pending.values())), seat._silence_fault("when the referee sent it a request"))

    def collect(self) -> None:
        """Wait until an answer comes or a deadline passes; apply every answer that came."""
        waiting = [seat for seat in self.seats if seat.pending]
        due = min(seat.due(p) for seat in waiting for p in seat.pending.values())
        poller = self._poller(waiting)
        self.read(dict(poller.poll(max(0, math.ceil((due - time.monotonic()) * 1000)))))
        if time.monotonic() < due:
            return
        # Reading a frame can take the referee a while (a large one, or one it must check answer
        # by answer): an answer that came meanwhile is read before anyone is charged with a
        # timeout, so that one bot's frame can never cost another bot its game.
        self.read(dict(poller.poll(0)))
        now = time.monotonic()
        limits = self.config.limits
        for seat in waiting:
            for p in list(seat.pending.values()):
                if seat.pending.get(p.request_id) is p and now >= seat.due(p):
                    fault = seat._silence_fault(f"while the referee waited up to {p.deadline_ms} ms for its answer")
                    if fault.kind == FaultKind.TIMEOUT and p.deadline_ms < limits.decision_ms:
                        fault = ProtocolFault(FaultKind.TIMEOUT, f"the bot used up its {limits.game_ms} ms for the game")
                    self.fault(seat, p, fault)

    def read(self, ready: dict[Any, int]) -> None:
        """Apply the answers a poll found, and act on the connection events it found: a bot whose
        connection dropped while it owed an answer, or that opened a second one, is cut off."""
        for seat in self.seats:
            channel = seat.channel
            if channel is None:
                continue
            watched = channel.watched
            if seat.pending and watched[0] in ready:
                self.drain(seat, channel)
                if seat.channel is not channel:  # a fault in its answers stopped it
                    continue
            if len(watched) < 2:
                continue
            dropped = watched[1] in ready and channel.note_drop()
            if channel.intruded or (dropped and seat.pending):
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

    def drain(self, seat: Seat, channel: Channel) -> None:
        """Apply every answer ``seat`` has queued.  A frame's time runs from when the oldest
        request it answers started (see :meth:`Seat.due`) and is shared equally by its answers."""
        while seat.pending and seat.channel is channel:
            frame = channel.recv_nowait()
            if frame is None:
                return
            now = time.monotonic()
            answers = seat.answers(frame)
            started = max(min(p.sent for p, _ in answers), seat.last_frame)
            seat.last_frame = now
            elapsed = (now - started) * 1000 / len(answers)
            for p, action in answers:
                if isinstance(action, ProtocolFault):
                    self.fault(seat, p, action)
                    continue
                g = p.game
                g.time_left_ms[p.seat] = max(0, g.time_left_ms[p.seat] - int(elapsed + 0.5))
                g.state.apply(action)
                g.extra.append({"ms": round(elapsed, 2)})
                g.asked = None

    def _poller(self, waiting: list[Seat]) -> zmq.Poller:
        """A poller of the bots that owe an answer (a frame from another one waits to be read)
        and of every bot's connection events, one per set of such bots, made once (until a bot
        is restarted)."""
        if Seat.changes != self.polled:
            self.pollers.clear()
            self.polled = Seat.changes
        key = tuple(seat.index for seat in waiting)
        poller = self.pollers.get(key)
        if poller is None:
            poller = self.pollers[key] = zmq.Poller()
            for seat in self.seats:
                if seat.channel is not None:  # of a bot owing nothing, only its connections
                    for socket in seat.channel.watched if seat in waiting else seat.channel.watched[1:]:
                        poller.register(socket, zmq.POLLIN)
        return poller

    # -- faults -------------------------------------------------------------------------------

    def fault(self, seat: Seat, pending: _Pending, fault: ProtocolFault) -> None:
        """``seat`` forfeits ``pending``'s game.  A bot that is dead, stuck or cut off (crash,
        timeout, ...) is stopped at once and forfeits every other game it plays; a bot that
        only sent a bad answer plays its other games to the end and is restarted after them."""
        seat.pending.pop(pending.request_id, None)
        self.forfeit(seat, pending.game, pending.seat, pending.number, fault, fatal=fault.kind in FATAL)

    def forfeit(self, seat: Seat, g: _Game, i: int, number: int, fault: ProtocolFault, *, fatal: bool) -> None:
        """Seat ``i`` forfeits ``g`` for ``fault`` (the bot is told).  ``fatal``: the bot can not
        go on (it may still be thinking): it is stopped now and forfeits its other games too;
        else it plays them to their end and is restarted after them (at once if it has none)."""
        self.remove(g, i, seat, fault.kind.value, fault.fault.message, number)
        if seat.channel is not None:
            seat.channel.send(messages.error(fault.kind, fault.fault.message))
        if fatal or not seat.playing:
            others = list(seat.playing)
            g.logs[i] = g.logs.get(i, "") + seat.stop(reason="fault")
            for other in others:
                self.remove(other, i, seat, fault.kind.value,
                            f"{fault.fault.message} (in game {g.game_id}, {COLLATERAL_NOTE})",
                            len(other.state.decisions), collateral=True)
        else:
            seat.retiring = True

    def remove(self, g: _Game, i: int, seat: Seat, kind: str, message: str, number: int, *,
               collateral: bool = False) -> None:
        record = FaultRecord(i, seat.spec.name, kind, message, number, collateral)
        g.fault[i] = record
        g.faults.append(record)
        if g.asked is not None and g.asked.seat == i:
            g.asked = None  # the request is void: the seat forfeits when play comes back to it
        seat.playing.discard(g)
        log.warning("%s (seat %d) faulted in %s: %s: %s", seat.spec.name, i, g.game_id, kind, message)

    # -- ending -------------------------------------------------------------------------------

    def finish(self, g: _Game) -> GameReport:
        """Tell the bots, count faults towards disqualification, and make the game's record."""
        run, state = g.run, g.state
        result = state.result()
        for i, seat in enumerate(self.seats):
            seat.playing.discard(g)
            fault = g.fault[i]
            if seat.ready and seat.channel is not None and g.generation[i] == seat.starts:
                own = None if fault is None or fault.kind == FaultKind.DISQUALIFIED.value else fault
                seat.channel.send(messages.game_over(
                    g.game_id, result.to_json(), state.events(i, g.cursor[i]), g.forced[i],
                    None if own is None else _protocol_fault(own),
                ))
            text = g.logs.get(i, "") + seat.take_stderr()
            g.logs[i] = _kept_log(text, faulted=fault is not None, spent=run.log_chars[i])
            run.log_chars[i] += len(g.logs[i])
            counted = standing(fault is not None, [f.collateral for f in g.faults if f.seat == i])
            if _tally(run, i, counted, self.config.faults_to_disqualify):
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
        report = GameReport(
            index=g.index, game_id=g.game_id, record=record, faults=g.faults, logs=g.logs,
            started=g.started, finished=now_iso(), duration_ms=int((time.monotonic() - g.t0) * 1000),
            starts=g.starts,
        )
        run.match.record(_result_of(report))
        run.reports.append(report)
        run.starts = [a + b for a, b in zip(run.starts, g.starts)]
        for key in self.keys:
            self.session.last_report[key] = report
        if run.match.over:
            self.end_match(run)
        return report

    def end_match(self, run: _Run) -> None:
        for seat in self.seats:
            if seat.ready and seat.channel is not None:
                seat.channel.send(messages.match_over(run.match.scores, run.match.winner, run.match_id))
        self.ended.append(run)

    def match_report(self, run: _Run) -> MatchReport:
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


def _protocol_fault(record: FaultRecord) -> Fault:
    return Fault(FaultKind(record.kind), record.message)


def _result_of(report: GameReport) -> GameResult:
    r = report.record["result"]
    return GameResult(tuple(r["places"]), r["winner"], r["capped"], tuple(r["forfeits"]), r["reason"])
