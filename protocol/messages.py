"""The messages of protocol version 1: constructors, the JSON Schema, and the referee's checks.

Messages travel as plain JSON objects, so here they are plain dicts (typed with ``TypedDict``)
built by one constructor per message type; the constructors are the single place that knows
each message's fields besides ``schema.json``.

Everything a bot sends is untrusted.  :func:`decode_bot_message` turns a raw frame into a
validated message or raises :class:`~protocol.faults.ProtocolFault` with the fault to record
(``malformed``, ``schema``, ``too_large``); :func:`accept_hello` and :func:`accept_action` then
apply the rules that a schema cannot express (protocol version, request id, legal set).
Validation uses a validator compiled from ``schema.json`` by fastjsonschema (about 2 µs for an
action); without fastjsonschema a small interpreter of the same schema takes over, so there is
one source of truth either way.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, NotRequired, TypedDict

from protocol import codec
from protocol.faults import Fault, FaultKind, ProtocolFault
from protocol.text import describe

__all__ = [
    "BOT_MESSAGES",
    "DEFAULT_MAX_MESSAGE_SIZE",
    "MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "REFEREE_MESSAGES",
    "Hello",
    "Limits",
    "MAX_CONCURRENT",
    "MAX_WALL_FACTOR",
    "DEFAULT_WALL_FACTOR",
    "accept_action",
    "accept_hello",
    "action",
    "actions",
    "decode_answers",
    "decode_bot_message",
    "error",
    "excerpt",
    "forced",
    "game_over",
    "game_start",
    "hello",
    "match_over",
    "request",
    "requests",
    "same_json",
    "schema",
    "shutdown",
    "validate",
    "welcome",
]

PROTOCOL_VERSION = 1
BOT_MESSAGES = ("hello", "action", "actions")
REFEREE_MESSAGES = ("welcome", "game_start", "request", "requests", "game_over", "match_over", "shutdown", "error")
MESSAGE_TYPES = BOT_MESSAGES + REFEREE_MESSAGES
# A legal action list is at most ~1,400 small objects (Powder Keg KD1), far below this.
DEFAULT_MAX_MESSAGE_SIZE = 1 << 20

Action = dict[str, Any]
Event = dict[str, Any]


# The longest time limits a tournament may set (ms): an hour per decision, a day per game, ten
# minutes to start.  Far past any real need, and far below what a poll's timeout can hold.
MAX_DECISION_MS = 3_600_000
MAX_GAME_MS = 86_400_000
MAX_STARTUP_MS = 600_000


MAX_WALL_FACTOR = 100
DEFAULT_WALL_FACTOR = 5


@dataclass(frozen=True, slots=True)
class Limits:
    """Time limits of a match, in milliseconds; all configurable by the tournament.

    ``decision_ms`` and ``game_ms`` are CPU time: what the bot's processes use between a request
    and its answer, so that a bot on a loaded machine is not charged for time it did not get.
    Each request must also be answered within ``wall_factor`` times ``decision_ms`` of wall-clock
    time from when it was sent, and a game within ``wall_factor`` times ``game_ms`` (a bot that
    waits on nothing, or sleeps, uses no CPU).  ``startup_ms`` is wall-clock time."""

    decision_ms: int = 2_000
    game_ms: int = 60_000
    startup_ms: int = 10_000
    wall_factor: int = DEFAULT_WALL_FACTOR

    @property
    def decision_wall_ms(self) -> int:
        """The wall-clock limit of one request."""
        return self.wall_factor * self.decision_ms

    @property
    def game_wall_ms(self) -> int:
        """The wall-clock limit of one bot's decisions in one game, together."""
        return self.wall_factor * self.game_ms

    def to_json(self) -> dict[str, int]:
        return {"decision_ms": self.decision_ms, "game_ms": self.game_ms, "startup_ms": self.startup_ms,
                "wall_factor": self.wall_factor}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Limits":
        """Limits from a ``welcome``; from a referee that predates ``wall_factor``, 1 (its limits were
        wall-clock time)."""
        return cls(int(data["decision_ms"]), int(data["game_ms"]), int(data["startup_ms"]),
                   int(data.get("wall_factor", 1)))


@dataclass(frozen=True, slots=True)
class Hello:
    """A bot's accepted handshake."""

    name: str
    version: str | None = None
    concurrent: int = 1  # games the bot plays at the same time, at most
    batch: bool = False  # it reads ``requests`` and may answer with ``actions``


MAX_CONCURRENT = 64  # the schema's bound on hello.concurrent


# -- message shapes ----------------------------------------------------------------------------


class HelloMsg(TypedDict):
    type: Literal["hello"]
    protocol: int
    name: str
    version: NotRequired[str]
    concurrent: NotRequired[int]
    batch: NotRequired[bool]


class ActionMsg(TypedDict):
    type: Literal["action"]
    id: int
    action: Action


class AnswerMsg(TypedDict):
    id: int
    action: Action


class ActionsMsg(TypedDict):
    type: Literal["actions"]
    actions: list[AnswerMsg]


class ForcedMsg(TypedDict):
    decision: str
    action: Action


class WelcomeMsg(TypedDict):
    type: Literal["welcome"]
    protocol: int
    game: str
    seat: int
    players: int
    names: list[str]
    variants: list[str]
    limits: dict[str, int]


class GameStartMsg(TypedDict):
    type: Literal["game_start"]
    game_id: str
    index: int
    seat: int
    config: dict[str, Any]
    scores: list[int]
    seed: str
    match_id: str


class RequestMsg(TypedDict):
    type: Literal["request"]
    id: int
    game_id: str
    decision: str
    observation: dict[str, Any]
    events: list[Event]
    forced: list[ForcedMsg]
    legal: list[Action]
    time_left_ms: int
    deadline_ms: int
    wall_ms: NotRequired[int]


class RequestsMsg(TypedDict):
    type: Literal["requests"]
    requests: list[RequestMsg]


class GameOverMsg(TypedDict):
    type: Literal["game_over"]
    game_id: str
    result: dict[str, Any]
    events: list[Event]
    forced: list[ForcedMsg]
    fault: dict[str, Any] | None


class MatchOverMsg(TypedDict):
    type: Literal["match_over"]
    scores: list[int]
    winner: int | None
    match_id: str


class ShutdownMsg(TypedDict):
    type: Literal["shutdown"]
    reason: NotRequired[str]


class ErrorMsg(TypedDict):
    type: Literal["error"]
    kind: str
    message: str


# -- constructors ------------------------------------------------------------------------------


def hello(name: str, version: str | None = None, protocol: int = PROTOCOL_VERSION,
          concurrent: int = 1, batch: bool = False) -> HelloMsg:
    """The bot's first message; ``concurrent`` > 1 offers to play that many games at the same time,
    ``batch`` to read several requests in one frame and answer several in one."""
    msg: HelloMsg = {"type": "hello", "protocol": protocol, "name": name}
    if version is not None:
        msg["version"] = version
    if concurrent != 1:
        msg["concurrent"] = concurrent
    if batch:
        msg["batch"] = True
    return msg


def action(request_id: int, chosen: Action) -> ActionMsg:
    """A bot's answer to the request ``request_id``."""
    return {"type": "action", "id": request_id, "action": chosen}


def actions(answers: Iterable[tuple[int, Action]]) -> ActionsMsg:
    """A batching bot's answers to several requests, as (request id, chosen action) pairs."""
    return {"type": "actions", "actions": [{"id": request_id, "action": chosen} for request_id, chosen in answers]}


def forced(decision: str, chosen: Action) -> ForcedMsg:
    """One decision the referee applied for a seat because it had a single legal action."""
    return {"decision": decision, "action": chosen}


def welcome(
    game: str, seat: int, names: Sequence[str], variants: Iterable[str] = (), limits: Limits = Limits()
) -> WelcomeMsg:
    """The referee's reply to an accepted hello."""
    return {
        "type": "welcome",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "seat": seat,
        "players": len(names),
        "names": list(names),
        "variants": list(variants),
        "limits": limits.to_json(),
    }


def game_start(
    game_id: str, index: int, seat: int, config: Mapping[str, Any], scores: Iterable[int], seed: str, match_id: str,
) -> GameStartMsg:
    """A new game of the match ``match_id``; ``scores`` are the match points so far, ``seed`` one for
    the bot's own use."""
    return {
        "type": "game_start",
        "game_id": game_id,
        "index": index,
        "seat": seat,
        "config": dict(config),
        "scores": list(scores),
        "seed": seed,
        "match_id": match_id,
    }


def request(
    request_id: int,
    game_id: str,
    decision: str,
    observation: Mapping[str, Any],
    legal: Sequence[Action],
    time_left_ms: int,
    deadline_ms: int,
    events: Iterable[Event] = (),
    forced: Iterable[ForcedMsg] = (),
    wall_ms: int | None = None,
) -> RequestMsg:
    """A decision to make; ``events``/``forced`` are what the seat has not been told yet;
    ``deadline_ms`` is CPU time, ``wall_ms`` the wall-clock limit (see :class:`Limits`)."""
    msg: RequestMsg = {
        "type": "request",
        "id": request_id,
        "game_id": game_id,
        "decision": decision,
        "observation": dict(observation),
        "events": list(events),
        "forced": list(forced),
        "legal": list(legal),
        "time_left_ms": time_left_ms,
        "deadline_ms": deadline_ms,
    }
    if wall_ms is not None:
        msg["wall_ms"] = wall_ms
    return msg


def requests(batch: Iterable[RequestMsg]) -> RequestsMsg:
    """Several requests sent to a batching bot in one frame (at least two)."""
    return {"type": "requests", "requests": list(batch)}


def game_over(
    game_id: str,
    result: Mapping[str, Any],
    events: Iterable[Event] = (),
    forced: Iterable[ForcedMsg] = (),
    fault: Fault | None = None,
) -> GameOverMsg:
    """The end of a game; ``fault`` is the receiving bot's own fault in it, if any."""
    return {
        "type": "game_over",
        "game_id": game_id,
        "result": dict(result),
        "events": list(events),
        "forced": list(forced),
        "fault": None if fault is None else fault.to_json(),
    }


def match_over(scores: Iterable[int], winner: int | None, match_id: str) -> MatchOverMsg:
    """The end of the match ``match_id``."""
    return {"type": "match_over", "scores": list(scores), "winner": winner, "match_id": match_id}


def shutdown(reason: str | None = None) -> ShutdownMsg:
    """Tell the bot to exit now."""
    msg: ShutdownMsg = {"type": "shutdown"}
    if reason is not None:
        msg["reason"] = reason
    return msg


def error(kind: FaultKind | str, message: str) -> ErrorMsg:
    """Tell a bot why it is being stopped (best effort: it may already be gone)."""
    return {"type": "error", "kind": str(FaultKind(kind)), "message": message}


# -- schema and validation ---------------------------------------------------------------------


@cache
def _schema_text() -> str:
    import importlib.resources  # here: a bot never reads the schema, and the import costs each one 6 ms

    return importlib.resources.files("protocol").joinpath("schema.json").read_text(encoding="utf-8")


@cache
def _schema() -> dict[str, Any]:
    return json.loads(_schema_text())


def schema() -> dict[str, Any]:
    """The protocol's JSON Schema (draft-07), a fresh copy the caller may change."""
    return copy.deepcopy(_schema())


Validator = Callable[[Any], None]


def _is_integer(value: Any) -> bool:
    # JSON Schema (draft-06 on) counts 1.0 as an integer; bool is never a number.
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value) and value.is_integer())


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _check(node: Mapping[str, Any], value: Any, path: str, root: Mapping[str, Any]) -> None:
    """Check ``value`` against the subset of draft-07 that schema.json uses (the fallback)."""
    if "$ref" in node:
        target: Any = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        _check(target, value, path, root)
    kind = node.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else kind
        if not any(_TYPE_CHECKS[k](value) for k in kinds):
            raise ValueError(f"{path} must be {' or '.join(kinds)}")
    if "const" in node and not (value == node["const"] and type(value) is type(node["const"])):
        raise ValueError(f"{path} must be {node['const']!r}")
    if "enum" in node and value not in node["enum"]:
        raise ValueError(f"{path} must be one of {node['enum']}")
    for key in ("anyOf", "oneOf"):
        if key in node:
            matches = 0
            for option in node[key]:
                try:
                    _check(option, value, path, root)
                except ValueError:
                    continue
                matches += 1
            if matches == 0 or (key == "oneOf" and matches > 1):
                raise ValueError(f"{path} must match {'exactly one' if key == 'oneOf' else 'one'} of its options")
    if isinstance(value, str):
        if len(value) < node.get("minLength", 0):
            raise ValueError(f"{path} must be at least {node['minLength']} characters long")
        if "maxLength" in node and len(value) > node["maxLength"]:
            raise ValueError(f"{path} must be at most {node['maxLength']} characters long")
    if "minimum" in node and _TYPE_CHECKS["number"](value) and value < node["minimum"]:
        raise ValueError(f"{path} must be at least {node['minimum']}")
    if "maximum" in node and _TYPE_CHECKS["number"](value) and value > node["maximum"]:
        raise ValueError(f"{path} must be at most {node['maximum']}")
    if isinstance(value, list):
        if len(value) < node.get("minItems", 0):
            raise ValueError(f"{path} must contain at least {node['minItems']} items")
        if "items" in node:
            for i, item in enumerate(value):
                _check(node["items"], item, f"{path}[{i}]", root)
    if isinstance(value, dict):
        missing = [k for k in node.get("required", ()) if k not in value]
        if missing:
            raise ValueError(f"{path} must contain {missing} properties")
        properties = node.get("properties", {})
        extra = node.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                _check(properties[key], item, f"{path}.{key}", root)
            elif extra is False:
                raise ValueError(f"{path} must not contain {describe(key)}")
            elif isinstance(extra, dict):
                _check(extra, item, f"{path}.{key}", root)


def _fallback_validator(name: str) -> Validator:
    root = _schema()
    node = root["definitions"][name]

    def validate(value: Any) -> None:
        _check(node, value, "data", root)

    return validate


def _compiled_validator(name: str) -> Validator:
    import fastjsonschema

    compiled = fastjsonschema.compile({"$ref": f"#/definitions/{name}", "definitions": _schema()["definitions"]})

    def validate(value: Any) -> None:
        try:
            compiled(value)
        except fastjsonschema.JsonSchemaValueException as exc:
            raise ValueError(exc.message) from None

    return validate


@cache
def _validators(use_fastjsonschema: bool = True) -> dict[str, Validator]:
    """One validator per message type: dispatching on ``type`` is ~20× faster than ``oneOf``."""
    make = _fallback_validator
    if use_fastjsonschema:
        try:
            import fastjsonschema  # noqa: F401
        except ImportError:  # pragma: no cover - depends on the installation
            pass
        else:
            make = _compiled_validator
    return {name: make(name) for name in MESSAGE_TYPES}


def validate(msg: Any, allowed: Iterable[str] = MESSAGE_TYPES, *, use_fastjsonschema: bool = True) -> None:
    """Raise :class:`ProtocolFault` (``schema``) unless ``msg`` is a valid message of an allowed type."""
    if not isinstance(msg, dict):
        raise ProtocolFault(FaultKind.SCHEMA, f"a message must be a JSON object, not {type(msg).__name__}")
    allowed = tuple(allowed)
    kind = msg.get("type")
    if kind not in allowed or not isinstance(kind, str):
        expected = ", ".join(allowed)
        raise ProtocolFault(FaultKind.SCHEMA, f"unexpected message type {describe(kind)} (expected {expected})")
    try:
        _validators(use_fastjsonschema)[kind](msg)
    except ValueError as exc:
        raise ProtocolFault(FaultKind.SCHEMA, f"invalid {kind} message: {exc}") from None


# -- the referee's side ------------------------------------------------------------------------


def _malformed(frame: bytes | memoryview, exc: ValueError) -> str:
    """Why a frame is not a message, in words a bot author can act on (orjson calls any bad
    UTF-8 "surrogates not allowed")."""
    try:
        bytes(frame).decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not UTF-8: byte 0x{bad.object[bad.start]:02x} at offset {bad.start} ({bad.reason})"
    return f"not JSON: {exc}"


def decode_bot_message(
    frame: bytes | memoryview, max_size: int = DEFAULT_MAX_MESSAGE_SIZE, expect: Iterable[str] = BOT_MESSAGES
) -> dict[str, Any]:
    """A bot's frame as a validated message, or :class:`ProtocolFault` naming the fault."""
    msg = _load(frame, max_size)
    validate(msg, expect)
    return msg


def _load(frame: bytes | memoryview, max_size: int) -> Any:
    """A bot's frame decoded (not validated), or a ``too_large``/``malformed`` fault."""
    # libzmq's MAXMSGSIZE normally drops such a frame before it gets here; this catches a
    # socket configured without it.
    if len(frame) > max_size:
        raise ProtocolFault(FaultKind.TOO_LARGE, f"message of {len(frame)} bytes (the limit is {max_size})")
    try:
        return codec.loads(frame)
    except ValueError as exc:
        raise ProtocolFault(FaultKind.MALFORMED, _malformed(frame, exc)) from None


def decode_answers(
    frame: bytes | memoryview, max_size: int = DEFAULT_MAX_MESSAGE_SIZE, batch: bool = False,
    limit: int | None = None,
) -> list[tuple[Any, ProtocolFault | None]]:
    """The answers a bot's frame carries, each with its own ``schema`` fault or ``None``.

    An ``action`` frame is one answer.  In an ``actions`` frame (allowed with ``batch``) whose
    list is readable, an element that breaks the schema is a fault of that element alone, so
    that it costs only its own game, as a wrong action does.  Only the first ``limit`` elements
    are read (the caller reads no further than one past its outstanding requests): checking
    every element of a frame of a million would stall the referee for seconds.  Raises
    :class:`ProtocolFault` for a frame that is not a readable answer at all."""
    msg = _load(frame, max_size)
    answers = msg.get("actions") if type(msg) is dict and msg.get("type") == "actions" else None
    if limit is not None and type(answers) is list and len(answers) > limit:
        msg = {**msg, "actions": answers[:limit]}
    try:
        validate(msg, ("action", "actions") if batch else ("action",))
    except ProtocolFault as fault:
        if fault.kind is not FaultKind.SCHEMA or not batch or type(msg) is not dict:
            raise
        answers = msg.get("actions")
        if msg.get("type") != "actions" or set(msg) != {"type", "actions"} or type(answers) is not list or not answers:
            raise
        return [(entry, _answer_fault(entry)) for entry in answers]
    return [(entry, None) for entry in (msg["actions"] if msg["type"] == "actions" else [msg])]


def _answer_fault(entry: Any) -> ProtocolFault | None:
    """The schema fault of one element of ``actions`` (an ``action`` message without its type)."""
    if type(entry) is not dict or "type" in entry:
        found = "a key 'type'" if type(entry) is dict else f"{type(entry).__name__}"
        return ProtocolFault(FaultKind.SCHEMA, f"an element of actions is an object of id and action, not {found}")
    try:
        validate({"type": "action", **entry}, ("action",))
    except ProtocolFault as fault:
        return ProtocolFault(FaultKind.SCHEMA, fault.fault.message.replace("invalid action message", "invalid element of actions"))
    return None


def accept_hello(msg: Mapping[str, Any]) -> Hello:
    """The bot's identity from a validated hello, or a ``protocol_version`` fault."""
    if msg["protocol"] != PROTOCOL_VERSION:
        raise ProtocolFault(
            FaultKind.PROTOCOL_VERSION,
            f"the bot speaks protocol {describe(msg['protocol'])}, this referee speaks protocol {PROTOCOL_VERSION}",
        )
    # JSON Schema's "integer" admits 8.0; the referee counts with ints.
    return Hello(msg["name"], msg.get("version"), int(msg.get("concurrent", 1)), msg.get("batch", False))


SHOWN_LEGAL = 150  # characters of the legal list an illegal fault's message shows (the message stays short)


def accept_action(msg: Mapping[str, Any], request_id: int | None, legal: Sequence[Action]) -> Action:
    """The legal action a validated action message picks, or a ``stale``/``illegal`` fault.

    Returns the referee's own copy from ``legal``, so the engine never sees the bot's object.
    ``request_id`` is the outstanding request, ``None`` if nothing is outstanding.
    """
    if msg["id"] != request_id:
        outstanding = "no request is outstanding" if request_id is None else f"the outstanding request is {request_id}"
        raise ProtocolFault(FaultKind.STALE, f"action for request {describe(msg['id'])}, but {outstanding}")
    chosen = msg["action"]
    for candidate in legal:
        if candidate == chosen and same_json(candidate, chosen):
            return candidate
    # The legal list, bounded: most often the answer lacks a field or has one too many, which
    # the list shows at a glance.
    shown: list[str] = []
    for candidate in legal:
        text = excerpt(candidate, 80)
        if shown and sum(len(s) + 2 for s in shown) + len(text) > SHOWN_LEGAL:
            break
        shown.append(text)
    more = f", and {len(legal) - len(shown)} more" if len(legal) > len(shown) else ""
    raise ProtocolFault(FaultKind.ILLEGAL,
                        f"action {excerpt(chosen, 90)} is not in the legal set; legal: {', '.join(shown)}{more}")


def same_json(a: Any, b: Any) -> bool:
    """Whether two values that Python finds equal (``a == b``) are also equal as JSON values:
    Python takes ``True`` for ``1`` and ``False`` for ``0``, JSON does not.  (``1.0`` and ``1``
    are one JSON number.)"""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb
    if ta is dict:
        for key, value in a.items():
            other = b[key]
            if type(value) in _SCALARS and type(other) in _SCALARS:
                continue  # equal, and neither is a bool
            if not same_json(value, other):
                return False
        return True
    if ta is list:
        return all(map(same_json, a, b))
    return True


_SCALARS = frozenset({str, int, float, type(None)})


def excerpt(value: Any, limit: int = 200) -> str:
    """A bot's JSON value, cut to about ``limit`` characters, for a fault message.  Never raises,
    whatever the value's depth or size (see :func:`protocol.text.describe`)."""
    return describe(value, limit)
