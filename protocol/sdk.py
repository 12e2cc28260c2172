"""The Python SDK: write a bot as one function or one small class, and let :func:`run` talk.

A bot is either a function ``(observation, legal) -> action`` or an object with
``act(self, observation, legal, ctx) -> action`` and, optionally, the hooks
``on_game_start(self, msg)``, ``on_game_over(self, msg)`` and ``on_match_over(self, msg)``.
The action must be one of ``legal``, returned as given.  :func:`run` owns the socket: it
connects, says hello, answers every request with the same id, keeps :class:`Context` up to
date, and returns 0 when the referee says ``shutdown`` or goes away.

A random bot, complete::

    import random
    import sys

    from protocol.sdk import run

    rng = random.Random()


    def act(observation, legal):
        return rng.choice(legal)


    if __name__ == "__main__":
        sys.exit(run(act, name="random"))

An exception raised by the bot is not caught: the process dies with a traceback on stderr,
and the referee records a ``crash`` (a forfeit of that game), which is easier to debug than a
bot that limps on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import zmq

from protocol import codec
from protocol.messages import MAX_CONCURRENT, PROTOCOL_VERSION, Limits, action, actions, hello
from protocol.transport import Channel, endpoint_from

__all__ = ["EXIT_OK", "EXIT_PROTOCOL", "EXIT_USAGE", "Bot", "Context", "run"]

log = logging.getLogger("protocol.sdk")

EXIT_OK = 0
EXIT_PROTOCOL = 1  # the referee refused our protocol version
EXIT_USAGE = 2  # no endpoint given

Action = dict[str, Any]
Observation = dict[str, Any]
Event = dict[str, Any]
ActFunction = Callable[[Observation, list[Action]], Action]


@dataclass(slots=True)
class Context:
    """What a bot knows besides the observation: the match, the game so far, and the clock.

    ``history`` holds every event this seat was shown in the current game, in order (the
    ``events`` of each request, then of ``game_over``); ``forced`` the decisions the referee
    applied for this seat because they had a single legal action.  Both restart at each game.
    """

    seat: int = 0
    game: str = ""
    players: int = 0
    names: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    game_id: str = ""
    game_index: int = 0
    config: dict[str, Any] = field(default_factory=dict)
    scores: list[int] = field(default_factory=list)
    request_id: int = -1
    decision: str = ""
    time_left_ms: int = 0  # CPU time left of the game's budget
    deadline_ms: int = 0  # CPU time this decision may use
    wall_ms: int = 0  # wall-clock time within which the answer must arrive
    received_at: float = 0.0  # time.monotonic() when the current request's clock started (see remaining_ms)
    cpu_at: float = 0.0  # time.process_time() then
    history: list[Event] = field(default_factory=list)
    forced: list[dict[str, Any]] = field(default_factory=list)

    def remaining_ms(self) -> float:
        """Milliseconds left for the current decision, by this process's wall clock: from when
        the request arrived or, within a batch, from when the previous answers were sent: the
        frame being filled must reach the referee within the deadline of its oldest request.  The
        referee counts CPU time, which for a bot of one thread never runs ahead of the wall
        clock, so this is the safe measure; as for any request, the time in transit is not seen
        here: keep a margin."""
        return self.deadline_ms - (time.monotonic() - self.received_at) * 1000.0

    def cpu_remaining_ms(self) -> float:
        """Milliseconds of CPU time left for the current decision, as the referee counts them
        (this process's, every thread included; processes it started are counted too), from the
        same start as :meth:`remaining_ms`.  On a busy machine this leaves more than
        :meth:`remaining_ms`; the answer must still arrive within ``wall_ms``."""
        return self.deadline_ms - (time.process_time() - self.cpu_at) * 1000.0


class Bot(Protocol):
    """The class form of a bot; the hooks are optional (subclassing is not needed)."""

    def act(self, observation: Observation, legal: list[Action], ctx: Context) -> Action: ...


def _adapt(bot: Any) -> Callable[[Observation, list[Action], Context], Action]:
    act = getattr(bot, "act", None)
    if callable(act):
        return act
    if callable(bot):
        return lambda observation, legal, ctx: bot(observation, legal)
    raise TypeError(f"a bot is a function (observation, legal) or has act(observation, legal, ctx), not {bot!r}")


# A batch's answers are sent once deciding has taken this long, and at the batch's end.
FLUSH_AFTER_S = 0.002


MAX_POLL_MS = 2**31 - 1  # a poll's timeout is a C long: 32 bits on some systems


def _idle_limit(idle_timeout: float, ctx: Context, players: int, concurrent: int = 1) -> float:
    # The longest the referee may legitimately stay silent: every other seat using its whole
    # game budget (in wall-clock time) in each of the games in play at once, plus a bot restart.
    # A vanished referee is noticed at once anyway, through the dropped connection; this limit
    # only covers a referee that hangs.
    limits = ctx.limits
    busy = (concurrent * max(players - 1, 0) * limits.game_wall_ms + limits.startup_ms
            + limits.decision_wall_ms)
    return max(idle_timeout, busy / 1000.0)


@dataclass(slots=True)
class _Match:
    """One match in play: its bot instance (or the shared one), hooks and context."""

    act: Callable[[Observation, list[Action], Context], Action]
    hooks: dict[str, Callable[[dict[str, Any]], Any] | None]
    ctx: Context


def _hooks(instance: Any) -> dict[str, Callable[[dict[str, Any]], Any] | None]:
    return {kind: getattr(instance, f"on_{kind}", None) for kind in ("game_start", "game_over", "match_over")}


class _Session:
    """What a bot process knows between messages, and what it does with each message type.

    Separate from the socket, so that the loop in :func:`run` is only read and handle; the
    handlers are looked up by message type in :attr:`handlers`.  A handler sends its answers
    through ``send`` as soon as they are ready and may end the session by setting :attr:`status`.
    """

    def __init__(self, bot: Any, idle_timeout: float, concurrent: int,
                 send: Callable[[dict[str, Any]], Any]) -> None:
        self.bot = bot
        self.send = send
        self.shared = None if isinstance(bot, type) else (_adapt(bot), _hooks(bot))
        self.idle_timeout = idle_timeout
        self.concurrent = concurrent
        self.lineup = Context()  # what the welcome says; each match's context starts as a copy
        self.matches: dict[str, _Match] = {}
        self.by_game: dict[str, _Match] = {}
        self.limit = idle_timeout  # seconds of silence after which the referee is taken for gone
        self.status: int | None = None  # set when the session is over
        self.handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "request": self.on_request, "requests": self.on_requests, "welcome": self.on_welcome,
            "game_start": self.on_game_start, "game_over": self.on_game_over, "match_over": self.on_match_over,
            "shutdown": self.on_shutdown, "error": self.on_error,
        }

    def handle(self, msg: dict[str, Any]) -> None:
        """Act on ``msg`` (a decoded protocol message), sending whatever answers it."""
        handler = self.handlers.get(msg["type"])
        if handler is None:
            # A newer referee may add message types; an old bot should not die of them.
            log.warning("ignoring unknown message type %r", msg["type"])
            return
        handler(msg)

    def match_of(self, match_id: str) -> _Match:
        match = self.matches.get(match_id)
        if match is None:
            if self.shared is None:
                instance = self.bot()
                act, hooks = _adapt(instance), _hooks(instance)
            else:
                act, hooks = self.shared
            lineup = self.lineup
            ctx = Context(seat=lineup.seat, game=lineup.game, players=lineup.players, names=list(lineup.names),
                          variants=list(lineup.variants), limits=lineup.limits)
            match = self.matches[match_id] = _Match(act, hooks, ctx)
        return match

    def decide(self, msg: dict[str, Any], started: tuple[float, float]) -> Action:
        """The bot's answer to one request; its clock runs from ``started`` (monotonic and
        process time)."""
        match = self.by_game.get(msg["game_id"]) or self.match_of("")
        ctx = match.ctx
        ctx.received_at, ctx.cpu_at = started
        ctx.request_id = msg["id"]
        ctx.decision = msg["decision"]
        ctx.time_left_ms = msg["time_left_ms"]
        ctx.deadline_ms = msg["deadline_ms"]
        ctx.wall_ms = msg.get("wall_ms", msg["deadline_ms"])  # a referee of wall-clock limits only
        if msg["game_id"] != ctx.game_id:
            _new_game(ctx, msg["game_id"])
        ctx.history.extend(msg["events"])
        ctx.forced.extend(msg["forced"])
        chosen = match.act(msg["observation"], msg["legal"], ctx)
        if not isinstance(chosen, dict):
            raise TypeError(f"act must return one of the legal actions (a dict), not {chosen!r}")
        return chosen

    # -- one handler per message type ----------------------------------------------------------

    def on_request(self, msg: dict[str, Any]) -> None:
        self.send(action(msg["id"], self.decide(msg, (time.monotonic(), time.process_time()))))

    def on_requests(self, msg: dict[str, Any]) -> None:
        # Answers go back together, unless deciding takes long enough that holding them would
        # cost the bot time (the referee shares a frame's time among its answers).
        started = (time.monotonic(), time.process_time())
        answers = []
        for request in msg["requests"]:
            answers.append((request["id"], self.decide(request, started)))
            if time.monotonic() - started[0] > FLUSH_AFTER_S:
                self.send(actions(answers))
                answers, started = [], (time.monotonic(), time.process_time())
        if answers:
            self.send(actions(answers))

    def on_welcome(self, msg: dict[str, Any]) -> None:
        lineup = self.lineup
        lineup.seat, lineup.game, lineup.players = msg["seat"], msg["game"], msg["players"]
        lineup.names, lineup.variants = msg["names"], msg["variants"]
        lineup.limits = Limits.from_json(msg["limits"])
        self.limit = _idle_limit(self.idle_timeout, lineup, lineup.players, self.concurrent)

    def on_game_start(self, msg: dict[str, Any]) -> None:
        match = self.match_of(msg.get("match_id", ""))
        self.by_game[msg["game_id"]] = match
        ctx = match.ctx
        _new_game(ctx, msg["game_id"])
        ctx.game_index, ctx.seat = msg["index"], msg["seat"]
        ctx.config, ctx.scores = msg["config"], msg["scores"]
        if match.hooks["game_start"]:
            match.hooks["game_start"](msg)

    def on_game_over(self, msg: dict[str, Any]) -> None:
        match = self.by_game.pop(msg["game_id"], None) or self.match_of("")
        match.ctx.history.extend(msg["events"])
        match.ctx.forced.extend(msg["forced"])
        if msg.get("fault"):
            fault = msg["fault"]
            log.warning("forfeited game %s: %s: %s", msg["game_id"], fault["kind"], fault["message"])
        if match.hooks["game_over"]:
            match.hooks["game_over"](msg)

    def on_match_over(self, msg: dict[str, Any]) -> None:
        match = self.matches.pop(msg.get("match_id", ""), None) or self.match_of("")
        match.ctx.scores = msg["scores"]
        if match.hooks["match_over"]:
            match.hooks["match_over"](msg)

    def on_shutdown(self, msg: dict[str, Any]) -> None:
        self.status = EXIT_OK

    def on_error(self, msg: dict[str, Any]) -> None:
        if msg.get("kind") == "protocol_version":
            log.error("protocol version mismatch (this SDK speaks %d): %s", PROTOCOL_VERSION, msg.get("message"))
            self.status = EXIT_PROTOCOL
        else:
            log.error("the referee reports a fault: %s: %s", msg.get("kind"), msg.get("message"))


def run(
    bot: ActFunction | Bot | type,
    name: str = "bot",
    *,
    version: str | None = None,
    endpoint: str | None = None,
    idle_timeout: float = 60.0,
    context: zmq.Context | None = None,
    concurrent: int = 1,
) -> int:
    """Play as ``bot`` until the referee says ``shutdown``; return the exit status (0: clean end).

    ``bot`` is a function, a class (one instance per match) or an instance (shared by every
    match).  ``concurrent`` > 1 offers the referee to play that many games at the same time, and
    to take their requests in batches (``hello.batch``): a quick bot then costs about a third less
    CPU per decision (README, benchmarks).  It needs a function or a class, since an instance
    shared by interleaved games would mix them up.

    ``endpoint`` defaults to ``$ARENA_ENDPOINT``, then ``argv[1]``.  The bot gives up after
    ``idle_timeout`` seconds without a message (stretched after the welcome to cover the
    slowest legal table) or as soon as the referee's connection drops.
    """
    if not 1 <= concurrent <= MAX_CONCURRENT:
        raise ValueError(f"concurrent must be between 1 and {MAX_CONCURRENT}, not {concurrent}")
    if concurrent > 1 and not isinstance(bot, type) and callable(getattr(bot, "act", None)):
        raise ValueError("with concurrent > 1, pass the bot's class (one instance per match) or a function, "
                         "not an instance that interleaved games would share")
    endpoint = endpoint or endpoint_from()
    if not endpoint:
        log.error("no endpoint: pass it as the first argument or in $ARENA_ENDPOINT")
        return EXIT_USAGE
    own_context = context is None
    zctx = zmq.Context() if own_context else context
    channel = Channel.connect(endpoint, context=zctx)
    session = _Session(bot, idle_timeout, concurrent, channel.send)
    try:
        # A bot playing several games at once also takes several requests per frame: one
        # wake-up and one message each way then serve a whole burst.
        channel.send(hello(name, version, concurrent=concurrent, batch=concurrent > 1))
        while session.status is None:
            frame = channel.recv_bytes(min(int(session.limit * 1000), MAX_POLL_MS))
            if frame is None:
                if channel.dropped:
                    log.info("the referee went away; exiting")
                else:
                    log.warning("no message from the referee for %.0f s; exiting", session.limit)
                return EXIT_OK
            try:
                msg = codec.loads(frame)
                msg["type"]
            except (ValueError, TypeError, KeyError):
                log.warning("ignoring a message that is not a protocol message: %.200r", frame)
                continue
            session.handle(msg)
        return session.status
    finally:
        channel.close()
        if own_context:
            zctx.term()


def in_process(bot: ActFunction | Bot | type) -> Callable[[dict[str, Any]], list[dict[str, Any]]]:
    """``bot`` as :func:`run` drives it, without a socket: give the returned function a
    protocol message, get the bot's answers.  For playing a bot in the author's own process
    (``arena.debug.play``), where a debugger can stop in ``act``.  Each message goes through
    the codec both ways, as over the wire, so the bot can never change the caller's objects."""
    answers: list[dict[str, Any]] = []
    session = _Session(bot, idle_timeout=float("inf"), concurrent=1,
                       send=lambda msg: answers.append(codec.loads(codec.dumps(msg))))

    def handle(msg: dict[str, Any]) -> list[dict[str, Any]]:
        answers.clear()
        session.handle(codec.loads(codec.dumps(msg)))
        return list(answers)

    return handle


def _new_game(ctx: Context, game_id: str) -> None:
    ctx.game_id = game_id
    ctx.history = []
    ctx.forced = []
