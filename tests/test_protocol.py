"""The bot protocol: schema, codec, referee-side checks, transport and the Python SDK.

Everything that talks runs over real ZeroMQ ipc sockets in a private temporary directory;
the "referee" here is a few lines of test code driving a bound DEALER.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest
import zmq

from protocol import (
    DEFAULT_MAX_MESSAGE_SIZE,
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    Channel,
    Fault,
    FaultKind,
    ProtocolFault,
    accept_action,
    accept_hello,
    bot_endpoint,
    codec,
    decode_bot_message,
    endpoint_from,
    private_endpoint,
    schema,
    validate,
)
from protocol import messages as m
from protocol import sdk

from common import ROOT
WAIT_MS = 10_000  # generous: CI machines are small and busy

REACTOR_LEGAL = [  # the README's Reactor example: codes in the engine's fixed order, Spark first
    {"type": "play", "card": "S", "value": 1},
    {"type": "play", "card": "S", "value": 11},
    {"type": "play", "card": "7"},
    {"type": "play", "card": "PB"},
]
KEG_LEGAL = [
    {"type": "draw"},
    {"type": "play", "card": "J"},
    {"type": "favour", "target": 2},
    {"type": "pair", "card": "2", "target": 2},
]
REACTOR_OBSERVATION = {"seat": 1, "meter": 8, "hand": ["S", "7", "PB"], "direction": 1, "tokens": [3, 3, 2]}
KEG_OBSERVATION = {"seat": 0, "hand": ["Bk", "J", "9", "2", "2"], "hand_sizes": [5, 0, 3], "pile": 14}


def examples() -> list[dict[str, Any]]:
    """One or more valid messages of every type, as the README shows them."""
    return [
        m.hello("random", "1.2"),
        m.hello("plain"),
        m.action(7, {"type": "play", "card": "S", "value": 11}),
        m.welcome("reactor", 1, ["alice", "random", "greedy"], [], m.Limits()),
        m.welcome("powder-keg", 0, ["a", "b", "c"], ["five-different"], m.Limits(500, 30_000, 5_000)),
        m.game_start("t1-p3-g0", 0, 1, {"players": 3, "variants": [], "starter": 0}, [0, 0, 0], "0123456789abcdef", "t1-p3"),
        m.request(
            7,
            "t1-p3-g0",
            "RD1",
            REACTOR_OBSERVATION,
            REACTOR_LEGAL,
            58_113,
            2_000,
            events=[{"type": "play", "seat": 0, "card": "7", "meter": 81}],
            forced=[m.forced("RD1", {"type": "play", "card": "RL"})],
        ),
        m.request(12, "t2-p1-g3", "KD1", KEG_OBSERVATION, KEG_LEGAL, 60_000, 2_000),
        m.game_over(
            "t1-p3-g0",
            {"places": [2, 1, 3], "winner": 1, "capped": False, "forfeits": [], "reason": "normal"},
            events=[{"type": "overload", "seat": 2}],
        ),
        m.game_over(
            "t1-p3-g0", {"places": [1, 3, 2], "winner": 0}, fault=Fault(FaultKind.TIMEOUT, "no answer in 2000 ms")
        ),
        m.match_over([2, 5, 1], 1, "t1-p3"),
        m.match_over([2, 2, 2], None, "t1-p3"),
        m.shutdown(),
        m.shutdown("match over"),
        m.error(FaultKind.ILLEGAL, 'action {"type":"play","card":"9"} is not in the legal set'),
        m.error("protocol_version", "the bot speaks protocol 2, this referee speaks protocol 1"),
        m.hello("busy", concurrent=16),
        m.game_start("t1-p3-g1", 1, 0, {"players": 2}, [1, 0], seed="5eed", match_id="t1-p3"),
        m.match_over([1, 0], 0, match_id="t1-p3"),
        m.hello("quick", concurrent=16, batch=True),
        m.requests([m.request(7, "a-g0", "RD1", REACTOR_OBSERVATION, REACTOR_LEGAL, 60_000, 2_000),
                    m.request(8, "b-g0", "RD2", REACTOR_OBSERVATION, [{"type": "stop"}], 60_000, 2_000)]),
        m.actions([(7, REACTOR_LEGAL[0]), (8, {"type": "stop"})]),
        m.actions([(9, {"type": "draw"})]),
    ]


def _without(msg: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in msg.items() if k != key}


def bad_examples() -> list[tuple[str, Any]]:
    action = m.action(3, {"type": "draw"})
    request = examples()[6]
    return [
        ("not an object", [1, 2]),
        ("no type", {"id": 3, "action": {"type": "draw"}}),
        ("unknown type", {"type": "resign", "id": 3}),
        ("type not a string", {"type": ["action"], "id": 3}),
        ("action without id", _without(action, "id")),
        ("action id as string", {**action, "id": "3"}),
        ("action id as bool", {**action, "id": True}),
        ("negative id", {**action, "id": -1}),
        ("action not an object", {**action, "action": "draw"}),
        ("action without its type", {**action, "action": {"card": "5"}}),
        ("extra field in action", {**action, "note": "hi"}),
        ("hello without name", _without(m.hello("x"), "name")),
        ("hello with empty name", m.hello("")),
        ("hello protocol as string", {**m.hello("x"), "protocol": "1"}),
        ("hello concurrent 0", {**m.hello("x"), "concurrent": 0}),
        ("hello concurrent over 64", {**m.hello("x"), "concurrent": 65}),
        ("hello concurrent as string", {**m.hello("x"), "concurrent": "8"}),
        ("hello batch as number", {**m.hello("x"), "batch": 1}),
        ("requests with one request", {"type": "requests", "requests": [request]}),
        ("requests holding an action", {"type": "requests", "requests": [request, action]}),
        ("actions empty", {"type": "actions", "actions": []}),
        ("actions entry without action", {"type": "actions", "actions": [{"id": 3}]}),
        ("actions entry with a type", {"type": "actions", "actions": [action]}),
        ("actions not a list", {"type": "actions", "actions": {"id": 3, "action": {"type": "draw"}}}),
        ("request without legal", _without(request, "legal")),
        ("request with empty legal", {**request, "legal": []}),
        ("request with an empty decision", {**request, "decision": ""}),
        ("request with bad forced", {**request, "forced": [{"action": {"type": "draw"}}]}),
        ("welcome with a game that is no name", {**examples()[3], "game": 7}),
        ("welcome without limits", _without(examples()[3], "limits")),
        ("welcome with extra limit", {**examples()[3], "limits": {**m.Limits().to_json(), "think_ms": 5}}),
        ("game_over with unknown fault", {**examples()[8], "fault": {"kind": "bored", "message": "x"}}),
        ("game_over without places", {**examples()[8], "result": {"winner": 1}}),
        ("match_over winner as string", m.match_over([1, 2], "1", "m")),  # type: ignore[arg-type]
        ("game_start without seed", _without(examples()[5], "seed")),  # always sent: a bot may rely on it
        ("match_over without match_id", _without(m.match_over([1, 0], 0, "m"), "match_id")),
        ("shutdown with nonsense", {"type": "shutdown", "now": True}),
        ("error with unknown kind", {"type": "error", "kind": "oops", "message": "x"}),
    ]


@pytest.fixture(params=[True, False], ids=["fastjsonschema", "fallback"])
def use_fast(request: pytest.FixtureRequest) -> bool:
    return request.param


# -- schema ------------------------------------------------------------------------------------


def test_schema_is_draft7_with_a_definition_for_every_message() -> None:
    doc = schema()
    assert doc["$schema"] == "http://json-schema.org/draft-07/schema#"
    refs = {option["$ref"] for option in doc["oneOf"]}
    assert refs == {f"#/definitions/{name}" for name in MESSAGE_TYPES}
    assert set(doc["definitions"]["fault_kind"]["enum"]) == {kind.value for kind in FaultKind}
    # The protocol knows no game: a game's name and its decision points are plain strings here.
    assert "enum" not in doc["definitions"]["decision"] and "enum" not in doc["definitions"]["game"]
    doc["definitions"].clear()
    assert schema()["definitions"], "schema() must hand out a copy"


def test_schema_ships_inside_the_package() -> None:
    import importlib.resources

    text = importlib.resources.files("protocol").joinpath("schema.json").read_text(encoding="utf-8")
    assert json.loads(text) == schema()


@pytest.mark.parametrize("msg", examples(), ids=lambda msg: msg["type"])
def test_every_example_is_valid(msg: dict[str, Any], use_fast: bool) -> None:
    validate(msg, use_fastjsonschema=use_fast)
    # The whole document's oneOf agrees, as any other-language validator would see it.
    fastjsonschema.compile(schema())(copy.deepcopy(msg))


@pytest.mark.parametrize(("why", "msg"), bad_examples(), ids=[why for why, _ in bad_examples()])
def test_bad_messages_are_rejected(why: str, msg: Any, use_fast: bool) -> None:
    with pytest.raises(ProtocolFault) as caught:
        validate(msg, use_fastjsonschema=use_fast)
    assert caught.value.kind is FaultKind.SCHEMA
    with pytest.raises(fastjsonschema.JsonSchemaException):
        fastjsonschema.compile(schema())(msg)


def readme_exchanges() -> list[tuple[str, Any]]:
    """The ``bot:``/``ref:`` messages of the README's examples (wrapped over several lines)."""
    text = (ROOT / "protocol" / "README.md").read_text(encoding="utf-8")
    found: list[tuple[str, Any]] = []
    sender, buffer = "", ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("bot: ", "ref: ")):
            assert not buffer, f"unfinished message before {stripped[:40]}"
            sender, buffer = stripped[:3], stripped[5:]
        elif buffer and stripped and not stripped.startswith(("#", "```")):
            buffer += " " + stripped
        else:
            continue
        try:
            found.append((sender, json.loads(buffer)))
        except ValueError:
            continue
        buffer = ""
    assert not buffer, "a README message is not valid JSON"
    return found


def test_the_readme_examples_are_valid_messages(use_fast: bool) -> None:
    exchanges = readme_exchanges()
    assert {msg["type"] for _, msg in exchanges} == set(MESSAGE_TYPES) - {"error"}
    for sender, msg in exchanges:
        validate(msg, m.BOT_MESSAGES if sender == "bot" else m.REFEREE_MESSAGES, use_fastjsonschema=use_fast)
        if msg["type"] == "action":
            request = next(r for _, r in exchanges if r["type"] == "request" and r["id"] == msg["id"])
            accept_action(msg, request["id"], request["legal"])
    legal_by_decision = {msg["decision"]: msg["legal"] for _, msg in exchanges if msg["type"] == "request"}
    assert legal_by_decision["RD1"] == REACTOR_LEGAL
    assert all(action in legal_by_decision["KD1"] for action in KEG_LEGAL)


# -- codec -------------------------------------------------------------------------------------


@pytest.mark.parametrize("msg", examples(), ids=lambda msg: msg["type"])
def test_codec_round_trip(msg: dict[str, Any]) -> None:
    assert codec.loads(codec.dumps(msg)) == msg
    # Both back ends put the same bytes on the wire.
    assert codec._std_dumps(msg) == codec.dumps(msg)
    assert codec._std_loads(codec.dumps(msg)) == msg


def test_codec_keeps_unicode_as_utf8() -> None:
    frame = codec.dumps(m.hello("Zoë 🤖"))
    assert "Zoë 🤖".encode() in frame
    assert codec.loads(frame)["name"] == "Zoë 🤖"


@pytest.mark.parametrize("loads", [codec.loads, codec._std_loads], ids=["default", "stdlib"])
@pytest.mark.parametrize("frame", [b"\xff\xfe{}", b"NaN", b'{"type": "action"', b"[" * 100_000, b""])
def test_codec_rejects_what_is_not_json(loads: Any, frame: bytes) -> None:
    with pytest.raises(ValueError):
        loads(frame)


# -- the referee's checks ----------------------------------------------------------------------


def test_decode_bot_message_names_the_fault() -> None:
    assert decode_bot_message(codec.dumps(m.hello("x"))) == m.hello("x")
    cases = [
        (b"\x80not utf-8", FaultKind.MALFORMED),
        (b"{not json}", FaultKind.MALFORMED),
        (b'"hello"', FaultKind.SCHEMA),
        (codec.dumps({"type": "action", "id": "1", "action": {"type": "draw"}}), FaultKind.SCHEMA),
        # Only hello and action come from a bot.
        (codec.dumps(m.shutdown()), FaultKind.SCHEMA),
        (b" " * (DEFAULT_MAX_MESSAGE_SIZE + 1), FaultKind.TOO_LARGE),
    ]
    for frame, kind in cases:
        with pytest.raises(ProtocolFault) as caught:
            decode_bot_message(frame)
        assert caught.value.kind is kind, frame[:40]
        assert caught.value.fault.message
    # Bad bytes and bad JSON are told apart (orjson calls bad UTF-8 "surrogates not allowed").
    with pytest.raises(ProtocolFault, match="^not UTF-8: byte 0x80 at offset 0 "):
        decode_bot_message(b"\x80not utf-8")
    with pytest.raises(ProtocolFault, match="^not JSON: "):
        decode_bot_message(b"{not json}")


def test_accept_hello_reports_a_version_mismatch() -> None:
    assert accept_hello(m.hello("bob", "0.3")) == m.Hello("bob", "0.3")
    with pytest.raises(ProtocolFault) as caught:
        accept_hello(decode_bot_message(codec.dumps(m.hello("bob", protocol=PROTOCOL_VERSION + 1))))
    assert caught.value.kind is FaultKind.PROTOCOL_VERSION
    assert "protocol 2" in caught.value.fault.message
    # JSON Schema's integer admits 8.0; the referee keeps an int (reports said "8.0 offered").
    hello = accept_hello(decode_bot_message(b'{"type": "hello", "protocol": 1, "name": "f", "concurrent": 8.0}'))
    assert hello.concurrent == 8 and type(hello.concurrent) is int


def test_accept_action_checks_id_then_legality() -> None:
    chosen = accept_action(m.action(4, {"type": "play", "card": "S", "value": 11}), 4, REACTOR_LEGAL)
    assert chosen is REACTOR_LEGAL[1]
    # The engine gets its own object back, never the bot's; true is not 1 in JSON (Python
    # thinks it is), so it is not in the legal set.
    for msg, outstanding, kind in [
        (m.action(4, {"type": "play", "card": "S", "value": True}), 4, FaultKind.ILLEGAL),
        (m.action(3, REACTOR_LEGAL[0]), 4, FaultKind.STALE),
        (m.action(4, REACTOR_LEGAL[0]), None, FaultKind.STALE),
        (m.action(4, {"type": "play", "card": "9"}), 4, FaultKind.ILLEGAL),
        (m.action(4, {"type": "play", "card": "S"}), 4, FaultKind.ILLEGAL),
        (m.action(4, {"type": "play", "card": "5", "why": "because"}), 4, FaultKind.ILLEGAL),
    ]:
        with pytest.raises(ProtocolFault) as caught:
            accept_action(msg, outstanding, REACTOR_LEGAL)
        assert caught.value.kind is kind


def test_fault_round_trip() -> None:
    fault = Fault(FaultKind.TOO_LARGE, "2 MiB")
    assert Fault.from_json(codec.loads(codec.dumps(fault.to_json()))) == fault
    assert FaultKind("disqualified") is FaultKind.DISQUALIFIED
    assert m.error(FaultKind.CRASH, "exit 1")["kind"] == "crash"


# -- transport ---------------------------------------------------------------------------------


@pytest.fixture
def zctx() -> Iterator[zmq.Context]:
    context = zmq.Context()
    yield context
    context.term()


@pytest.fixture
def endpoint() -> Iterator[str]:
    endpoint, directory = private_endpoint()
    assert oct(directory.stat().st_mode & 0o777) == "0o700"
    yield endpoint
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def referee(endpoint: str, zctx: zmq.Context) -> Iterator[Channel]:
    channel = Channel.bind(endpoint, context=zctx)
    yield channel
    channel.close()


def test_endpoint_comes_from_the_environment_then_argv() -> None:
    """The referee always sets $ARENA_ENDPOINT; argv[1] is for a bot started by hand (and a
    command's own arguments come before the endpoint the referee appends)."""
    assert endpoint_from(["bot.py", "--fast", "ipc:///tmp/a/bot.sock"], {"ARENA_ENDPOINT": "ipc:///b"}) == "ipc:///b"
    assert endpoint_from(["bot.py", "ipc:///tmp/a/bot.sock"], {}) == "ipc:///tmp/a/bot.sock"
    assert endpoint_from(["bot.py", "ipc:///tmp/a/bot.sock"], {"ARENA_ENDPOINT": ""}) == "ipc:///tmp/a/bot.sock"
    assert endpoint_from(["bot.py"], {}) is None
    assert bot_endpoint("/tmp/x") == "ipc:///tmp/x/bot.sock"
    with pytest.raises(ValueError, match="too long"):
        bot_endpoint("/tmp/" + "d" * 120)


def test_an_oversized_frame_is_dropped_by_libzmq(endpoint: str, zctx: zmq.Context) -> None:
    ref = Channel.bind(endpoint, max_message_size=1000, context=zctx)
    with ref, Channel.connect(endpoint, context=zctx) as bot:
        bot.send(m.hello("big"))
        assert decode_bot_message(ref.recv_bytes(WAIT_MS)) == m.hello("big")
        bot.send(m.action(1, {"type": "draw", "padding": "x" * 5000}))
        # The frame never arrives: libzmq cut the connection, which the channel notices.
        assert ref.recv_bytes(WAIT_MS) is None
        assert ref.dropped
        # The bot's socket reconnects on its own; later frames flow again.
        bot.send(m.action(2, {"type": "draw"}))
        assert decode_bot_message(ref.recv_bytes(WAIT_MS))["id"] == 2


def test_a_timeout_is_not_a_drop(referee: Channel, endpoint: str, zctx: zmq.Context) -> None:
    with Channel.connect(endpoint, context=zctx) as bot:
        bot.send(m.hello("quiet"))
        assert referee.recv_bytes(WAIT_MS) is not None
        assert referee.recv_bytes(50) is None
        assert not referee.dropped


def test_send_never_blocks_without_a_peer(referee: Channel) -> None:
    started = time.monotonic()
    assert referee.send(m.shutdown()) is False and referee.dropped
    assert time.monotonic() - started < 10  # a guard against a blocking send, not a speed test


# -- the SDK against a fake referee ------------------------------------------------------------


def play_match(ref: Channel, games: int = 1) -> list[dict[str, Any]]:
    """Drive one whole match from the referee's side; returns the bot's action messages."""
    hello = decode_bot_message(ref.recv_bytes(WAIT_MS))
    assert accept_hello(hello).name
    ref.send(m.welcome("reactor", 1, ["alice", hello["name"], "carol"], [], m.Limits()))
    replies = []
    request_id = 0
    for game in range(games):
        game_id = f"test-g{game}"
        ref.send(m.game_start(game_id, game, 1, {"players": 3}, [game, 0, 0], f"seed{game}", "m0"))
        for decision, legal, forced in [
            ("RD1", REACTOR_LEGAL, [m.forced("RD1", {"type": "play", "card": "RL"})]),
            ("RD2", REACTOR_LEGAL[:2] + [{"type": "stop"}], []),
        ]:
            request_id += 1
            events = [{"type": "play", "seat": 0, "card": "7", "request": request_id}]
            observation = REACTOR_OBSERVATION
            ref.send(m.request(request_id, game_id, decision, observation, legal, 60_000, 2_000, events, forced))
            reply = decode_bot_message(ref.recv_bytes(WAIT_MS))
            assert accept_action(reply, request_id, legal) == reply["action"]
            replies.append(reply)
        ref.send(m.game_over(game_id, {"places": [2, 1, 3], "winner": 1}, [{"type": "overload", "seat": 2}]))
    ref.send(m.match_over([0, games, 0], None, "m0"))
    ref.send(m.shutdown())
    return replies


def first_legal(observation: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    return legal[0]


class RecordingBot:
    """A class bot that keeps what the SDK showed it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int, int, int]] = []
        self.hooks: list[str] = []

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]], ctx: sdk.Context) -> dict[str, Any]:
        assert observation == REACTOR_OBSERVATION and ctx.game == "reactor" and ctx.seat == 1
        assert ctx.players == 3 and ctx.time_left_ms == 60_000 and 0 < ctx.remaining_ms() <= 2_000
        self.calls.append((ctx.decision, ctx.request_id, len(ctx.history), len(ctx.forced), ctx.game_index))
        return legal[-1]

    def on_game_start(self, msg: dict[str, Any]) -> None:
        self.hooks.append(msg["type"])

    def on_game_over(self, msg: dict[str, Any]) -> None:
        self.hooks.append(msg["type"])

    def on_match_over(self, msg: dict[str, Any]) -> None:
        self.hooks.append(msg["type"])


class BotThread(threading.Thread):
    """``sdk.run`` in a thread, keeping its exit status."""

    def __init__(self, bot: Any, endpoint: str, **kwargs: Any) -> None:
        super().__init__(daemon=True)
        self.args = (bot, endpoint, kwargs)
        self.status: int | None = None

    def run(self) -> None:
        bot, endpoint, kwargs = self.args
        self.status = sdk.run(bot, name="tester", endpoint=endpoint, **kwargs)

    def finish(self) -> int | None:
        self.join(WAIT_MS / 1000)
        assert not self.is_alive(), "the SDK did not exit"
        return self.status


def test_function_bot_plays_a_match(referee: Channel, endpoint: str) -> None:
    thread = BotThread(first_legal, endpoint)
    thread.start()
    replies = play_match(referee)
    assert [r["action"] for r in replies] == [REACTOR_LEGAL[0], REACTOR_LEGAL[0]]
    assert thread.finish() == sdk.EXIT_OK


def test_class_bot_gets_context_and_hooks(referee: Channel, endpoint: str) -> None:
    bot = RecordingBot()
    thread = BotThread(bot, endpoint)
    thread.start()
    replies = play_match(referee, games=2)
    assert thread.finish() == sdk.EXIT_OK
    assert [r["action"] for r in replies] == [REACTOR_LEGAL[3], {"type": "stop"}] * 2
    # History and forced decisions accumulate within a game and restart with the next one.
    assert bot.calls == [("RD1", 1, 1, 1, 0), ("RD2", 2, 2, 1, 0), ("RD1", 3, 1, 1, 1), ("RD2", 4, 2, 1, 1)]
    assert bot.hooks == ["game_start", "game_over"] * 2 + ["match_over"]


class PerMatchBot(RecordingBot):
    """A class bot that logs, in a shared list, which instance saw what."""

    log: list[tuple[int, str, int]] = []

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]], ctx: sdk.Context) -> dict[str, Any]:
        self.log.append((id(self), ctx.game_id, len(ctx.history)))
        return legal[ctx.request_id % len(legal)]


def test_interleaved_matches_get_one_instance_each(referee: Channel, endpoint: str) -> None:
    """hello.concurrent: two matches of one lineup in play at once, their messages interleaved;
    the SDK keeps one instance and one context per match, and answers each request by its id."""
    PerMatchBot.log = []
    thread = BotThread(PerMatchBot, endpoint, concurrent=4)
    thread.start()
    hello = decode_bot_message(referee.recv_bytes(WAIT_MS))
    assert accept_hello(hello).concurrent == 4 and hello["concurrent"] == 4
    referee.send(m.welcome("reactor", 1, ["alice", "tester", "carol"], [], m.Limits()))
    for match in ("a", "b"):
        referee.send(m.game_start(f"{match}-g0", 0, 1, {"players": 3}, [0, 0, 0], "5eed", match))
    event = [{"type": "play", "seat": 0, "card": "7"}]
    # Four requests sent before any answer: a, b, b, a (the b game got two events in between).
    sent = [(1, "a-g0"), (2, "b-g0"), (3, "b-g0"), (4, "a-g0")]
    for request_id, game_id in sent:
        referee.send(m.request(request_id, game_id, "RD1", REACTOR_OBSERVATION, REACTOR_LEGAL, 60_000, 2_000, event))
    answers = [decode_bot_message(referee.recv_bytes(WAIT_MS)) for _ in sent]
    assert [(a["id"], a["action"]) for a in answers] == [(i, REACTOR_LEGAL[i % 4]) for i, _ in sent]
    for match in ("a", "b"):
        referee.send(m.game_over(f"{match}-g0", {"places": [2, 1, 3], "winner": 1}))
        referee.send(m.match_over([0, 1, 0], 1, match_id=match))
    referee.send(m.shutdown())
    assert thread.finish() == sdk.EXIT_OK
    instance = {game: bot for bot, game, _ in PerMatchBot.log}
    assert instance["a-g0"] != instance["b-g0"]
    assert [(game, seen) for _, game, seen in PerMatchBot.log] == [("a-g0", 1), ("b-g0", 1), ("b-g0", 2), ("a-g0", 2)]


class SlowBot(PerMatchBot):
    """Takes longer than the SDK holds a batch's answers back for."""

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]], ctx: sdk.Context) -> dict[str, Any]:
        time.sleep(sdk.FLUSH_AFTER_S * 2)
        return super().act(observation, legal, ctx)


# "Quick" is quick against the SDK's flush time: its 2 ms were longer than three quick decisions
# on a quiet machine, but not on a loaded one, where the bot's thread can wait that long for a CPU
# and send two frames (issue 16).  So the quick case is judged against a flush time no machine
# reaches; the slow one keeps the real 2 ms, which its bot's sleep always exceeds.
@pytest.mark.parametrize("bot, frames, flush_after_s", [(PerMatchBot, 1, 60.0), (SlowBot, 3, sdk.FLUSH_AFTER_S)],
                         ids=["quick", "slow"])
def test_a_batch_of_requests_is_answered_in_one_frame_when_quick(
        referee: Channel, endpoint: str, bot: type, frames: int, flush_after_s: float,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """hello.batch: the SDK offers it with concurrent > 1, reads a requests frame as its requests
    one by one (each game's instance and context as usual) and answers them in one actions frame,
    unless deciding takes long enough that holding answers back would cost the bot time."""
    monkeypatch.setattr(sdk, "FLUSH_AFTER_S", flush_after_s)
    PerMatchBot.log = []
    thread = BotThread(bot, endpoint, concurrent=4)
    thread.start()
    hello = decode_bot_message(referee.recv_bytes(WAIT_MS))
    assert accept_hello(hello).batch and hello["batch"] is True
    referee.send(m.welcome("reactor", 1, ["alice", "tester", "carol"], [], m.Limits()))
    for match in ("a", "b", "c"):
        referee.send(m.game_start(f"{match}-g0", 0, 1, {"players": 3}, [0, 0, 0], "5eed", match))
    event = [{"type": "play", "seat": 0, "card": "7"}]
    sent = [(1, "a-g0"), (2, "b-g0"), (3, "c-g0")]
    referee.send(m.requests([m.request(i, g, "RD1", REACTOR_OBSERVATION, REACTOR_LEGAL, 60_000, 2_000, event)
                             for i, g in sent]))
    got = [decode_bot_message(referee.recv_bytes(WAIT_MS)) for _ in range(frames)]
    assert {msg["type"] for msg in got} == {"actions"}
    answers = [(a["id"], a["action"]) for msg in got for a in msg["actions"]]
    assert answers == [(i, REACTOR_LEGAL[i % 4]) for i, _ in sent]
    # A lone request still comes as a request, and is answered by an action.
    referee.send(m.request(4, "a-g0", "RD1", REACTOR_OBSERVATION, REACTOR_LEGAL, 60_000, 2_000))
    assert decode_bot_message(referee.recv_bytes(WAIT_MS)) == m.action(4, REACTOR_LEGAL[0])
    referee.send(m.shutdown())
    assert thread.finish() == sdk.EXIT_OK
    assert referee.recv_bytes(100) is None
    assert [(game, seen) for _, game, seen in PerMatchBot.log] == [("a-g0", 1), ("b-g0", 1), ("c-g0", 1), ("a-g0", 1)]


def test_one_game_at_a_time_offers_no_batch(referee: Channel, endpoint: str) -> None:
    thread = BotThread(first_legal, endpoint)
    thread.start()
    hello = decode_bot_message(referee.recv_bytes(WAIT_MS))
    assert "batch" not in hello and "concurrent" not in hello and not accept_hello(hello).batch
    referee.send(m.shutdown())
    assert thread.finish() == sdk.EXIT_OK


def test_interleaving_needs_a_class_or_a_function() -> None:
    with pytest.raises(ValueError, match="class"):
        sdk.run(RecordingBot(), endpoint="ipc:///nowhere", concurrent=2)
    with pytest.raises(ValueError, match="between 1 and 64"):
        sdk.run(first_legal, endpoint="ipc:///nowhere", concurrent=65)


def test_sdk_bot_in_a_subprocess_exits_with_status_0(referee: Channel, endpoint: str, tmp_path: Path) -> None:
    script = tmp_path / "class_bot.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys

            from protocol.sdk import run


            class Last:
                def act(self, observation, legal, ctx):
                    return legal[-1]


            if __name__ == "__main__":
                sys.exit(run(Last, name="last", version="1.0"))
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_ENDPOINT": endpoint}
    proc = subprocess.Popen([sys.executable, str(script)], env=env)
    try:
        replies = play_match(referee)
        assert proc.wait(WAIT_MS / 1000) == 0
    finally:
        proc.kill()
    assert [r["action"] for r in replies] == [REACTOR_LEGAL[3], {"type": "stop"}]


def test_sdk_reports_a_protocol_version_mismatch(
    referee: Channel, endpoint: str, caplog: pytest.LogCaptureFixture
) -> None:
    thread = BotThread(first_legal, endpoint)
    with caplog.at_level(logging.ERROR, logger="protocol.sdk"):
        thread.start()
        decode_bot_message(referee.recv_bytes(WAIT_MS))
        referee.send(m.error(FaultKind.PROTOCOL_VERSION, "this referee speaks protocol 9"))
        referee.send(m.shutdown())
        assert thread.finish() == sdk.EXIT_PROTOCOL
    assert "protocol version mismatch" in caplog.text and "protocol 9" in caplog.text


def test_referee_answers_a_wrong_version_with_an_error(referee: Channel, endpoint: str, zctx: zmq.Context) -> None:
    with Channel.connect(endpoint, context=zctx) as bot:
        bot.send(m.hello("future", protocol=PROTOCOL_VERSION + 1))
        try:
            accept_hello(decode_bot_message(referee.recv_bytes(WAIT_MS)))
        except ProtocolFault as fault:
            referee.send(m.error(fault.kind, fault.fault.message))
            referee.send(m.shutdown())
        reply = bot.recv(WAIT_MS)
        validate(reply)
        assert reply["type"] == "error" and reply["kind"] == "protocol_version"
        assert bot.recv(WAIT_MS) == m.shutdown()


def test_sdk_exits_when_the_referee_goes_away(endpoint: str, zctx: zmq.Context) -> None:
    ref = Channel.bind(endpoint, context=zctx)
    thread = BotThread(first_legal, endpoint, idle_timeout=600)
    thread.start()
    decode_bot_message(ref.recv_bytes(WAIT_MS))
    started = time.monotonic()
    ref.close()
    assert thread.finish() == sdk.EXIT_OK
    assert time.monotonic() - started < 20  # a guard against a bot that waits for ever, not a speed test


def test_sdk_gives_up_on_a_silent_referee(referee: Channel, endpoint: str) -> None:
    thread = BotThread(first_legal, endpoint, idle_timeout=0.3)
    thread.start()
    assert thread.finish() == sdk.EXIT_OK
    assert referee.recv(0) == m.hello("tester")


def test_sdk_skips_what_it_does_not_understand(referee: Channel, endpoint: str) -> None:
    thread = BotThread(first_legal, endpoint)
    thread.start()
    referee.send_bytes(b"not json")
    referee.send({"type": "gossip", "text": "a future message type"})
    play_match(referee)
    assert thread.finish() == sdk.EXIT_OK


def test_sdk_needs_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["bot.py"])
    monkeypatch.delenv("ARENA_ENDPOINT", raising=False)
    assert sdk.run(first_legal) == sdk.EXIT_USAGE


def test_sdk_refuses_something_that_is_not_a_bot() -> None:
    with pytest.raises(TypeError):
        sdk.run(42, endpoint="ipc:///nowhere")


def test_works_without_orjson_and_fastjsonschema(tmp_path: Path) -> None:
    """Both are optional: the stdlib codec and the schema interpreter take over."""
    code = textwrap.dedent(
        """
        import sys
        sys.modules["orjson"] = None  # makes "import orjson" fail
        sys.modules["fastjsonschema"] = None
        from protocol import codec, messages as m, ProtocolFault
        assert codec.BACKEND == "json", codec.BACKEND
        frame = codec.dumps(m.action(3, {"type": "play", "card": "S", "value": 11}))
        m.decode_bot_message(frame)
        try:
            m.decode_bot_message(codec.dumps({"type": "action", "id": "3", "action": {"type": "draw"}}))
        except ProtocolFault as fault:
            print(fault.kind)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "schema"


# -- packaging rules ---------------------------------------------------------------------------


def test_protocol_imports_nothing_from_arena() -> None:
    code = "import sys, protocol, protocol.sdk; print([n for n in sys.modules if n.split('.')[0] == 'arena'])"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    for path in (ROOT / "protocol").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "from arena" not in source and "import arena" not in source, path.name


def test_sdk_waits_longer_for_a_referee_of_many_games_at_once() -> None:
    """A referee may stay silent towards a bot while the other seats use their whole game time
    in every game in play: with 16 games at once that is 16 times as long as with one, and an
    SDK bot must not give up (and crash out of its games) before then."""
    ctx = sdk.Context(limits=m.Limits(decision_ms=2000, game_ms=60_000, startup_ms=10_000, wall_factor=1))
    one, many = sdk._idle_limit(60, ctx, 4, 1), sdk._idle_limit(60, ctx, 4, 16)
    assert one == (3 * 60_000 + 10_000 + 2000) / 1000
    assert many == (16 * 3 * 60_000 + 10_000 + 2000) / 1000
    # Decisions are CPU time; the wall-clock limits, wall_factor times as long, bound the silence.
    ctx = sdk.Context(limits=m.Limits(decision_ms=2000, game_ms=60_000, startup_ms=10_000, wall_factor=5))
    assert sdk._idle_limit(60, ctx, 4, 1) == (3 * 300_000 + 10_000 + 10_000) / 1000


def test_an_action_too_deep_to_encode_again_is_illegal_not_a_crash() -> None:
    """The decoder takes nesting the encoder refuses (1024 against 255 levels); the fault
    message must not re-encode such an action, or one small answer crashes the referee."""
    nested: dict = {}
    for _ in range(300):
        nested = {"a": nested}
    frame = json.dumps({"type": "action", "id": 4, "action": {"type": "play", "card": nested}}).encode()
    msg = decode_bot_message(frame)
    with pytest.raises(ProtocolFault) as caught:
        accept_action(msg, 4, REACTOR_LEGAL)
    message = caught.value.fault.message
    assert caught.value.kind is FaultKind.ILLEGAL and message.startswith('action {"type":"play","card":{"a":{"a":')
    assert len(message) < 300
    assert m.excerpt({"type": "play", "card": "x" * 500}) == codec.dumps({"type": "play", "card": "x" * 497}).decode()[:197] + "..."


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize("expect", [("hello",), ("action", "actions")], ids=["as the hello", "as an answer"])
@pytest.mark.parametrize("frame", [
    b'{"type": ' + _deep(1000) + b"}",  # repr() of it raised RecursionError: the referee died
    b'{"type": {"a": ' + _deep(1000) + b"}}",
    codec.dumps({"type": "x" * 900_000}),  # echoed whole, stored twice and sent back
    codec.dumps({"type": "hello", "protocol": 1, "name": "n", "k" * 900_000: 1}),
    codec.dumps({"type": "action", "id": 1, "action": {"type": "stop"}, "k" * 900_000: 1}),
    codec.dumps({"type": "hello\x1b[2J\u202e", "protocol": 1, "name": "n"}),
    codec.dumps({"type": "hello", "protocol": 1, "name": "n", "\x1b]0;owned\x07\n": 1}),
    b'{"type": "hello", "protocol": 1e300, "name": "n"}',
    b'{"type": "action", "id": 1e300, "action": {"type": "stop"}}',
], ids=["deep type", "deep in type", "long type", "long key", "long key in an action", "controls in type",
        "controls in a key", "huge protocol", "huge id"])
def test_a_fault_message_is_bounded_and_plain_whatever_the_bot_sent(frame: bytes, expect: tuple[str, ...]) -> None:
    """Every fault message quoting a bot is at most a few hundred bytes, one line, with no control
    or invisible format characters, and building it never raises anything but the fault."""
    try:
        msg = decode_bot_message(frame, len(frame), expect)
        if expect == ("hello",):
            accept_hello(msg)
        else:
            accept_action(msg, 7, REACTOR_LEGAL)
    except ProtocolFault as caught:
        message = caught.fault.message
    else:
        raise AssertionError("no fault")
    assert message and len(message.encode()) <= 400
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F or ch in "\u202e\u200b" for ch in message), message


def test_describe_shows_any_value_briefly_and_never_raises() -> None:
    from protocol.text import bounded, describe

    nested: list = []
    inner = nested
    for _ in range(100_000):  # far deeper than recursion could go
        inner.append([])
        inner = inner[0]
    assert describe(nested).startswith("[[[[") and len(describe(nested)) <= 80
    assert describe({"type": "play", "card": "7"}) == '{"type":"play","card":"7"}'
    assert describe(10 ** 5000) == "(an integer of about 5001 digits)"  # str() refuses it
    assert describe('\x1b[2J\u00e9"\\') == '"\\x1b[2J\u00e9\\"\\\\"'
    assert [describe(v) for v in (None, True, 1.5, [], {})] == ["null", "true", "1.5", "[]", "{}"]
    assert len(describe(list(range(1_000_000)))) <= 80
    assert bounded("a\nb\x1bc") == "a\\x0ab\\x1bc"
    cut = bounded("\u00e9" * 1000)
    assert len(cut.encode()) <= 400 and cut.endswith("...")


def test_an_answer_frame_is_read_no_further_than_the_caller_needs() -> None:
    """An ``actions`` frame of a million elements that break the schema was checked element by
    element (seconds of the referee's one thread, while other bots' deadlines ran); only the
    first ``limit`` are read, as the referee reads no further than one past its requests."""
    frame = codec.dumps({"type": "actions", "actions": [{}] * 1_000_000})
    entries = m.decode_answers(frame, len(frame), batch=True, limit=3)
    assert len(entries) == 3 and all(fault is not None and fault.kind is FaultKind.SCHEMA for _, fault in entries)
    valid = codec.dumps({"type": "actions", "actions": [{"id": i, "action": {"type": "stop"}} for i in range(100_000)]})
    assert [entry["id"] for entry, fault in m.decode_answers(valid, len(valid), batch=True, limit=2)] == [0, 1]
    assert len(m.decode_answers(valid, len(valid), batch=True)) == 100_000  # no limit: all of them
    for frame in (b"[1, 2]", b'"actions"', b"7"):  # JSON, but not an object: a schema fault of the frame
        with pytest.raises(ProtocolFault) as caught:
            m.decode_answers(frame, 100, batch=True, limit=2)
        assert caught.value.kind is FaultKind.SCHEMA


def test_an_action_is_compared_as_a_json_value_not_by_python_equality() -> None:
    """Python finds ``True == 1``; JSON does not: a bot answering ``"value": true`` for the
    Spark's value 1 sent an action outside the legal set (rulings §0), which must be refused.
    ``1.0`` is the JSON number 1 and is accepted."""
    spark_one = REACTOR_LEGAL[0]
    for wrong in ({**spark_one, "value": True}, {"type": "favour", "target": True}):
        with pytest.raises(ProtocolFault) as caught:
            accept_action(m.action(3, wrong), 3, [*REACTOR_LEGAL, {"type": "favour", "target": 1}])
        assert caught.value.kind is FaultKind.ILLEGAL
    assert accept_action(m.action(3, {**spark_one, "value": 1.0}), 3, REACTOR_LEGAL) is spark_one
    five = {"type": "five", "cards": ["Bk", "6", "5", "4", "3"]}
    assert accept_action(m.action(3, {"type": "five", "cards": ["Bk", "6", "5", "4", "3"]}), 3, [five]) is five
    assert not m.same_json({"cards": [1, 0]}, {"cards": [True, False]}) and m.same_json({"a": None}, {"a": None})


def test_an_illegal_action_fault_shows_the_legal_list_bounded() -> None:
    """A Spark played without its value is obvious beside the legal list; a long list is cut."""
    from protocol.faults import ProtocolFault
    from protocol.messages import SHOWN_LEGAL, accept_action

    legal = [{"type": "play", "card": "SP", "value": v} for v in range(20)]
    with pytest.raises(ProtocolFault) as caught:
        accept_action({"type": "action", "id": 1, "action": {"type": "play", "card": "SP"}}, 1, legal)
    message = caught.value.fault.message
    assert message.startswith('action {"type":"play","card":"SP"} is not in the legal set; legal: '
                              '{"type":"play","card":"SP","value":0}, {"type":"play","card":"SP","value":1}')
    shown = message.count('"value":')
    assert 2 <= shown < 20 and message.endswith(f", and {20 - shown} more") and len(message) < 300


def test_a_bot_that_imports_the_sdk_does_not_import_asyncio() -> None:
    """The SDK is what every Python bot imports before it says hello: asyncio (which pyzmq's
    monitor helpers pull in) was a third of a bot's start-up, paid once per bot per tournament;
    importlib.resources (for the schema, which no bot reads) 6 ms of it."""
    code = ("import sys, protocol.sdk; "
            "print(sorted(m for m in ('asyncio', 'zmq.asyncio', 'importlib.resources') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_monitor_event_is_read_from_the_first_frame() -> None:
    """A drop is told by the monitor's event number (a 16-bit number, then a 32-bit value)."""
    import struct

    from protocol.transport import _monitor_event

    assert _monitor_event([struct.pack("=Hi", zmq.EVENT_DISCONNECTED, 7), b"ipc://x"]) == zmq.EVENT_DISCONNECTED
    assert _monitor_event([struct.pack("=Hi", zmq.EVENT_CONNECTED, 7), b"ipc://x"]) == zmq.EVENT_CONNECTED
    assert _monitor_event([b""]) == 0
