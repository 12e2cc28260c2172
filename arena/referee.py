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
"""

from __future__ import annotations

import hashlib
import logging
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import zmq

from arena import sandbox
from arena.errors import UnknownBot
from arena.games import Game, GameConfig, GameResult, SeededChance
from arena.games.match import Match
from arena.games.record import make_record
from protocol import codec
from protocol.faults import Fault, FaultKind, ProtocolFault
from protocol.messages import (
    DEFAULT_MAX_MESSAGE_SIZE,
    Limits,
    accept_action,
    accept_hello,
    decode_bot_message,
)
from protocol import messages
from protocol.transport import Channel, bot_endpoint

log = logging.getLogger("arena.referee")

CUTOFF_FACTOR = 8
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
    expose = tuple(str(Path(w).resolve()) for w in words[1:] if Path(w).exists())
    return BotSpec(name or Path(words[-1]).stem, (os.path.realpath(program), *words[1:]), expose)


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """Policies of the referee; every number has a sane default and can be changed."""

    limits: Limits = field(default_factory=Limits)
    sandbox_mode: str = "auto"
    resources: sandbox.Limits = field(default_factory=sandbox.Limits)
    faults_to_disqualify: int = 3
    auto_single: bool = True
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A bot's fault in one game: what happened, in words its author can act on."""

    seat: int
    bot: str
    kind: str
    message: str
    decision: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "kind": self.kind, "message": self.message, "decision": self.decision}


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


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def bot_seed(seed: str, seat: int) -> str:
    """A seed a bot may use for its own randomness, that reveals nothing of the deal's seed."""
    return hashlib.sha256(f"bot:{seed}:{seat}".encode()).hexdigest()[:16]


class Seat:
    """One bot process at the table: its sandbox, its socket, and its standing in the match.

    ``index`` is the seat it holds in the current match (it may change between matches)."""

    def __init__(self, index: int, spec: BotSpec, context: zmq.Context, config: RefereeConfig, workroot: Path) -> None:
        self.index = index
        self.spec = spec
        self.context = context
        self.config = config
        self.workroot = workroot
        self.proc: sandbox.BotProcess | None = None
        self.channel: Channel | None = None
        self.endpoint_dir: Path | None = None
        self.ready = False
        self.welcomed: tuple[list[str], int] | None = None
        self.hello_name: str | None = None
        self.startup_fault: ProtocolFault | None = None
        self.startup_log = ""  # stderr of a bot that failed to start, for the next game's log
        self.faults_in_a_row = 0
        self.disqualified = False
        self.starts = 0
        self.launched = 0.0
        self.startup_ms: int | None = None
        self.next_id = 0
        # Per game: the fault that removed the seat, the log cursor, pending forced decisions.
        self.fault: FaultRecord | None = None
        self.cursor = 0
        self.forced: list[dict[str, Any]] = []
        self.time_left_ms = 0

    # -- process lifecycle --------------------------------------------------------------------

    def launch(self) -> None:
        """Bind the private socket and start the bot; faults are kept for :meth:`handshake`."""
        self.ready = False
        self.welcomed = None
        self.startup_fault = None
        self.endpoint_dir = Path(tempfile.mkdtemp(prefix=f"s{self.index}-", dir=self.workroot))
        endpoint = bot_endpoint(self.endpoint_dir)
        # libzmq cuts a connection off only far above the bound, so that an oversized message
        # usually arrives and is reported precisely as too_large rather than as a drop.
        self.channel = Channel.bind(
            endpoint, max_message_size=CUTOFF_FACTOR * self.config.max_message_size, context=self.context)
        self.starts += 1
        self.launched = time.monotonic()
        try:
            self.proc = sandbox.start_bot(
                self.spec.argv(endpoint),
                expose=[Path(p) for p in self.spec.expose],
                endpoint_dir=self.endpoint_dir,
                mode=self.config.sandbox_mode,
                limits=self.config.resources,
                env=dict(self.spec.env) or None,
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
        remaining = max(0, int((deadline - time.monotonic()) * 1000))
        frame = self.channel.recv_bytes(remaining)
        try:
            if frame is None:
                raise self._silence_fault(f"while the referee waited up to {self.config.limits.startup_ms} ms for its hello")
            hello = accept_hello(decode_bot_message(frame, self.config.max_message_size, ("hello",)))
        except ProtocolFault as fault:
            if fault.kind == FaultKind.PROTOCOL_VERSION:
                self.startup_fault = fault
                self.channel.send(messages.error(fault.kind, fault.fault.message))
            else:  # whatever went wrong, the bot never became ready: a start-up fault
                self.startup_fault = ProtocolFault(FaultKind.STARTUP, f"{fault.kind.value}: {fault.fault.message}")
            # Stop it now (a hung bot must not linger while the others play); keep what it said.
            self.startup_log += self.stop(reason="startup")
            return
        self.hello_name = hello.name
        self.startup_ms = int((time.monotonic() - self.launched) * 1000)
        self.ready = True

    def welcome(self, game: str, names: list[str], variants: list[str]) -> None:
        """Tell the bot about the match it plays next: the game, its seat, the names."""
        assert self.channel is not None
        self.channel.send(messages.welcome(game, self.index, names, variants, self.config.limits))

    def stop(self, reason: str | None = None) -> str:
        """Stop the bot and every process it started; return the stderr it left unread."""
        text = ""
        if self.channel is not None and self.ready and reason is None:
            self.channel.send(messages.shutdown())
        if self.proc is not None:
            if reason is None:
                self.proc.wait(0.5)
            self.proc.stop(grace=0.2 if reason is None else 0.0)
            text = self.proc.take_stderr()
            self.proc = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.endpoint_dir is not None:
            shutil.rmtree(self.endpoint_dir, ignore_errors=True)
            self.endpoint_dir = None
        self.ready = False
        return text

    def take_stderr(self) -> str:
        return self.proc.take_stderr() if self.proc is not None else ""

    # -- messages -----------------------------------------------------------------------------

    def _silence_fault(self, waited: str) -> ProtocolFault:
        """Why a bot said nothing: it died, its connection dropped, or it is just slow."""
        if self.proc is not None and self.channel is not None and self.channel.dropped:
            self.proc.wait(0.5)  # a dying process drops its connection a moment before it is reaped
        if self.proc is not None and self.proc.poll() is not None:
            return ProtocolFault(FaultKind.CRASH, f"the bot exited with status {self.proc.poll()} ({waited})")
        if self.channel is not None and self.channel.dropped:
            return ProtocolFault(
                FaultKind.DISCONNECTED,
                f"the bot's connection dropped while the bot was running: it closed its socket, or sent "
                f"a message over {CUTOFF_FACTOR * self.config.max_message_size} bytes ({waited})",
            )
        return ProtocolFault(FaultKind.TIMEOUT, f"no answer {waited.removeprefix('while the referee waited ')}")

    def ask(self, request: dict[str, Any], legal: list[dict[str, Any]], deadline_ms: int) -> dict[str, Any]:
        """Send a request and return the chosen legal action, or raise :class:`ProtocolFault`.

        A frame that is not the answer to this request (an answer to an earlier one, sent late
        or twice) is a ``stale`` fault: between requests a bot must stay silent.
        """
        assert self.channel is not None
        if not self.channel.send(request):
            raise self._silence_fault("the bot is not connected")
        request_id = request["id"]
        frame = self.channel.recv_bytes(deadline_ms)
        if frame is None:
            raise self._silence_fault(f"while the referee waited up to {deadline_ms} ms for its answer")
        # Fast path: a well-formed answer to this request that names a legal action is valid by
        # construction; anything else goes through the schema, which names the fault exactly.
        if len(frame) <= self.config.max_message_size:
            try:
                msg = codec.loads(frame)
            except ValueError:
                msg = None
            if (type(msg) is dict and len(msg) == 3 and msg.get("type") == "action"
                    and type(msg.get("id")) is int and msg["id"] == request_id):
                chosen = msg.get("action")
                for candidate in legal:
                    if candidate == chosen:
                        return candidate
        msg = decode_bot_message(frame, self.config.max_message_size, ("action",))
        return accept_action(msg, request_id, legal)


class Referee:
    """Plays matches between bot programs; one instance per process (it owns a ZeroMQ context)."""

    def __init__(self, config: RefereeConfig | None = None) -> None:
        self.config = config or RefereeConfig()
        self.context = zmq.Context()

    def close(self) -> None:
        self.context.term()

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


class Session:
    """Bot processes shared by consecutive matches: each bot is started once and restarted only
    after a fault.  A bot's seat may change from one match to the next (``welcome`` and
    ``game_start`` say which); two seats of one match never share a process."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.config = referee.config
        self.players: dict[tuple[BotSpec, int], Seat] = {}
        self.workroot = Path(tempfile.mkdtemp(prefix="arena-ref-"))
        os.chmod(self.workroot, 0o711)  # bots' uids must reach their own socket directory inside
        self.last_report: dict[tuple[BotSpec, int], GameReport] = {}

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every bot; stderr written after its last game still goes into that game's log."""
        for key, seat in self.players.items():
            tail = seat.stop()
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
        if len(bots) != config.players:
            raise ValueError(f"{len(bots)} bots for {config.players} seats")
        game.check_config(config)
        match = Match(game, config, list(done or []))
        names = [b.name for b in bots]
        keys = [(spec, bots[:i].count(spec)) for i, spec in enumerate(bots)]
        seats = []
        for index, key in enumerate(keys):
            if key not in self.players:
                self.players[key] = Seat(index, key[0], self.referee.context, self.config, self.workroot)
            seat = self.players[key]
            seat.index = index
            seat.faults_in_a_row = 0
            seat.disqualified = False
            seats.append(seat)
        starts_before = [seat.starts for seat in seats]
        reports: list[GameReport] = []
        counted = list(starts_before)
        self._ready(seats, game, names, config)
        while not match.over:
            index = len(match.results)
            report = self._play_game(game, match, seats, names, seed=f"{seed}:{index}", game_id=f"{match_id}-g{index}")
            report.starts = [s.starts - c for s, c in zip(seats, counted)]
            report.record["starts"] = report.starts
            counted = [s.starts for s in seats]
            match.record(_result_of(report))
            reports.append(report)
            for key in keys:
                self.last_report[key] = report
            if on_game is not None:
                on_game(report)
            if not match.over:
                self._ready([s for s in seats if not s.disqualified], game, names, config)
        for seat in seats:
            if seat.ready and seat.channel is not None:
                seat.channel.send(messages.match_over(match.scores, match.winner))
        return MatchReport(
            games=reports,
            scores=match.scores,
            winner=match.winner,
            disqualified=[s.index for s in seats if s.disqualified],
            starts=[s.starts - before for s, before in zip(seats, starts_before)],
            hello_names=[s.hello_name for s in seats],
            startup_ms=[s.startup_ms for s in seats],
        )

    # -- bot lifecycle ------------------------------------------------------------------------

    def _ready(self, seats: list[Seat], game: Game, names: list[str], config: GameConfig) -> None:
        """(Re)start every bot that is not running, then welcome each to this match."""
        fresh = [s for s in seats if not s.ready]
        for seat in fresh:
            seat.stop(reason="restart")
            seat.launch()
        deadline = time.monotonic() + self.config.limits.startup_ms / 1000
        for seat in fresh:
            seat.handshake(deadline)
        for seat in seats:
            if seat.ready and seat.welcomed != (names, seat.index):
                seat.welcome(game.name, names, list(config.variants))
                seat.welcomed = (names, seat.index)

    # -- one game -----------------------------------------------------------------------------

    def _play_game(self, game: Game, match: Match, seats: list[Seat], names: list[str], *, seed: str, game_id: str) -> GameReport:
        config = match.next_config()
        index = len(match.results)
        started, t0 = now_iso(), time.monotonic()
        state = game.new_game(config, SeededChance(seed))
        limits = self.config.limits
        extra: list[dict[str, Any]] = []
        faults: list[FaultRecord] = []
        logs: dict[int, str] = {}
        for seat in seats:
            seat.fault = None
            seat.cursor = 0
            seat.forced = []
            seat.time_left_ms = limits.game_ms
            if seat.disqualified:
                seat.fault = FaultRecord(seat.index, seat.spec.name, FaultKind.DISQUALIFIED.value,
                                         "disqualified from this match after faults in several games in a row")
            elif seat.startup_fault is not None:
                seat.fault = FaultRecord(seat.index, seat.spec.name, seat.startup_fault.kind.value, seat.startup_fault.fault.message)
                logs[seat.index], seat.startup_log = seat.startup_log, ""
            elif seat.ready:
                seat.channel.send(messages.game_start(  # type: ignore[union-attr]
                    game_id, index, seat.index, config.to_json(), match.scores, bot_seed(seed, seat.index)))
            if seat.fault is not None and seat.fault.kind != FaultKind.DISQUALIFIED.value:
                faults.append(seat.fault)

        def remove(seat: Seat, fault: ProtocolFault, number: int) -> None:
            record = FaultRecord(seat.index, seat.spec.name, fault.kind.value, fault.fault.message, number)
            seat.fault = record
            faults.append(record)
            log.warning("%s (seat %d) faulted in %s: %s: %s", seat.spec.name, seat.index, game_id,
                        fault.kind.value, fault.fault.message)
            if seat.channel is not None:
                seat.channel.send(messages.error(fault.kind, fault.fault.message))
            logs[seat.index] = logs.get(seat.index, "") + seat.stop(reason="fault")

        auto_single = self.config.auto_single
        while (decision := state.to_move()) is not None:
            number = len(state.decisions)
            seat = seats[decision.seat]
            if seat.fault is not None:
                # A seat removed from the game forfeits at its first decision (the engine's rule).
                state.forfeit(decision.seat, seat.fault.kind)
                extra.append({"fault": seat.fault.kind})
                continue
            legal = state.legal_actions()
            if auto_single and len(legal) == 1:
                state.apply(legal[0])
                seat.forced.append(messages.forced(decision.kind, legal[0]))
                extra.append({"auto": True})
                continue
            deadline_ms = min(limits.decision_ms, seat.time_left_ms)
            seat.next_id += 1
            request = {
                "type": "request",
                "id": seat.next_id,
                "game_id": game_id,
                "decision": decision.kind,
                "observation": state.observation(decision.seat),
                "events": state.events(decision.seat, seat.cursor),
                "forced": seat.forced,
                "legal": legal,
                "time_left_ms": seat.time_left_ms,
                "deadline_ms": deadline_ms,
            }
            seat.cursor = len(state.log)
            seat.forced = []
            sent = time.monotonic()
            try:
                action = seat.ask(request, legal, deadline_ms)
            except ProtocolFault as fault:
                if fault.kind == FaultKind.TIMEOUT and deadline_ms < limits.decision_ms:
                    fault = ProtocolFault(FaultKind.TIMEOUT, f"the bot used up its {limits.game_ms} ms for the game")
                remove(seat, fault, number)
                state.forfeit(decision.seat, fault.kind.value)
                extra.append({"fault": fault.kind.value})
                continue
            elapsed = (time.monotonic() - sent) * 1000
            seat.time_left_ms -= int(elapsed + 0.5)
            state.apply(action)
            extra.append({"ms": round(elapsed, 2)})

        result = state.result()
        for seat in seats:
            if seat.ready and seat.channel is not None:
                own = None
                if seat.fault is not None and seat.fault.kind != FaultKind.DISQUALIFIED.value:
                    own = seat.fault
                seat.channel.send(messages.game_over(
                    game_id, result.to_json(), state.events(seat.index, seat.cursor), seat.forced,
                    None if own is None else _protocol_fault(own),
                ))
            logs[seat.index] = logs.get(seat.index, "") + seat.take_stderr()
            if seat.fault is not None and seat.fault.kind != FaultKind.DISQUALIFIED.value:
                seat.faults_in_a_row += 1
                if seat.faults_in_a_row >= self.config.faults_to_disqualify:
                    seat.disqualified = True
                    log.warning("%s (seat %d) disqualified after %d faulty games in a row",
                                seat.spec.name, seat.index, seat.faults_in_a_row)
            elif seat.fault is None:
                seat.faults_in_a_row = 0
            if seat.fault is not None:
                seat.ready = False  # restarted before the next game, unless disqualified

        record = make_record(
            game, state, seats=names, seed=seed,
            match={"index": 0, "game": index, "scores": match.scores}, extra=extra,
        )
        record["game_id"] = game_id
        record["faults"] = [f.to_json() for f in faults]
        record["logs"] = {str(k): v for k, v in logs.items() if v}
        finished = now_iso()
        return GameReport(
            index=index, game_id=game_id, record=record, faults=faults, logs=logs,
            started=started, finished=finished, duration_ms=int((time.monotonic() - t0) * 1000),
        )


def _protocol_fault(record: FaultRecord) -> Fault:
    return Fault(FaultKind(record.kind), record.message)


def _result_of(report: GameReport) -> GameResult:
    r = report.record["result"]
    return GameResult(tuple(r["places"]), r["winner"], r["capped"], tuple(r["forfeits"]), r["reason"])
