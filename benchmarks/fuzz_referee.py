"""Fuzz the referee's reading of what bots send: nothing may crash it, every fault stays small.

    python benchmarks/fuzz_referee.py --messages 100000 --seed 1

Every message goes the way a bot's does, over a real Unix socket into the referee's end of a bot's
connection (:mod:`arena.referee.link`), and from there through the seat's reading of answers
(:meth:`arena.referee.seat.Seat.answers`) against real pending requests with legal actions taken
from real games, or through the reading of a hello.  The mutations (``tests/bots/fuzz_bot.py``,
whose bot sends the same over a real match) change a valid message's nesting, size, types and
bytes; a share of the messages are also broken at the level of ZeroMQ's framing (a MORE flag, a
lying size, a command, reserved bits) or of its handshake (greeting and READY).

Checked for every message: nothing but a protocol fault comes out; a fault's message is at most
400 bytes of UTF-8 with no control or invisible characters; an accepted answer is the referee's own
copy of one of its request's legal actions; the requests still owed are exactly those not answered;
and the referee's safety net (an error of its own while reading a frame, logged) never fired.
(A request a frame is charged to but that the frame did not answer stays owed until the table
turns the fault into a forfeit; that is checked too.)
Prints what the messages came to, and exits with status 1 on the first broken check.
"""

from __future__ import annotations

import argparse
import logging
import random
import socket
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.spec import BotSpec
from arena.games import GameConfig, SeededChance, get_game
from arena.referee.config import RefereeConfig
from arena.referee.link import BotLink, LinkFault, Links
from arena.referee.seat import Pending, Seat, _read_hello
from protocol import zmtp
from protocol.faults import ProtocolFault
from protocol.text import MESSAGE_LIMIT, escape

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "bots"))
import fuzz_bot  # noqa: E402 - a bot's file, self-contained, shared with the real-match fuzz

HELLO = {"type": "hello", "protocol": 1, "name": "fuzz", "concurrent": 4, "batch": True}


@dataclass(slots=True)
class FuzzReport:
    """What the fuzzed messages came to."""

    messages: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)  # "accepted", or a fault's kind
    longest_fault: int = 0  # bytes of the longest fault message
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        shown = ", ".join(f"{k} {v}" for k, v in self.outcomes.most_common())
        return [f"{self.messages} messages in {self.seconds:.1f} s: {shown}",
                f"longest fault message: {self.longest_fault} bytes; problems: {len(self.problems)}"]


class _Safety(logging.Handler):
    """Counts the referee's logged errors of its own while reading a frame."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.fired: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.fired.append(record.getMessage())


def _legal_lists(rng: random.Random, count: int = 400) -> list[list[dict[str, Any]]]:
    """Legal-action lists of real decisions of both games (random playouts)."""
    found = []
    for game_name, players in (("reactor", 4), ("powder-keg", 4), ("powder-keg", 2)):
        game = get_game(game_name)
        g = 0
        while len(found) < count * (1 + (game_name == "powder-keg")):
            state = game.new_game(GameConfig(players=players), SeededChance(f"fuzz:{game_name}:{g}"))
            g += 1
            while not state.terminal:
                legal = state.legal_actions()
                found.append(legal)
                state.apply(legal[rng.randrange(len(legal))])
    return found


class Harness:
    """A seat whose bot is this process: a raw Unix socket playing the bot's end of ZMTP."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.links = Links()
        self.config = RefereeConfig()
        self.seat = Seat(0, BotSpec("fuzz", ("fuzz",), ()), self.links, self.config, folder)
        self.seat.batch = True
        self.client: socket.socket | None = None
        self.count = 0

    def connect(self, greeting: bytes = zmtp.GREETING + zmtp.ready()) -> bytes | None:
        """A fresh link, a client connected to it that sent ``greeting`` and a hello; the hello as
        the link read it (None if the link could not get that far), or a LinkFault raised."""
        self.close()
        self.count += 1
        path = self.folder / f"bot{self.count}.sock"
        self.seat.link = self.links.open(path, max_message_size=self.config.max_message_size)
        self.client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.client.connect(str(path))
        self.client.setblocking(False)
        return self.pump(greeting + zmtp.encode_frame(fuzz_bot.encode(HELLO)), handshake=True)

    def pump(self, data: bytes, *, handshake: bool = False, patience: int = 4) -> bytes | None:
        """Send ``data`` as the bot, while the link reads; the first message the link returns, or
        ``None`` once everything is sent and the link has nothing whole.  LinkFault propagates."""
        link = self.seat.link
        assert self.client is not None and link is not None
        view = memoryview(data)
        idle = 0
        while True:
            if view:
                try:
                    sent = self.client.send(view[:1 << 16])
                    view = view[sent:]
                except BlockingIOError:
                    pass
                except OSError:
                    view = view[:0]  # the link closed its end
            frame = link.handshake() if handshake else link.recv()
            if frame is not None:
                return frame
            if not view:
                idle += 1
                if idle > patience:
                    return None

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.seat.link is not None:
            self.links.close(self.seat.link)
            self.seat.link = None


def _check_fault(fault: ProtocolFault, report: FuzzReport, what: str) -> None:
    message = fault.fault.message
    size = len(message.encode("utf-8", "surrogatepass"))
    report.longest_fault = max(report.longest_fault, size)
    if size > MESSAGE_LIMIT or escape(message) != message:
        report.problems.append(f"{what}: a fault message of {size} bytes, or with unsafe characters: {message[:80]!r}")
    report.outcomes[fault.kind.value] += 1


def _frame_breakage(rng: random.Random, body: bytes) -> bytes:
    """The message framed, and one time in eight broken at the level of ZMTP."""
    roll = rng.random()
    if roll > 0.125:
        return zmtp.encode_frame(body)
    kind = rng.randrange(6)
    if kind == 0:
        return zmtp.encode_frame(body, zmtp.MORE) + zmtp.encode_frame(b"part") * rng.randrange(3)
    if kind == 1:
        return bytes((0x02,)) + rng.choice([2**63, 2**40, 1 << 21, len(body) + 5]).to_bytes(8, "big") + body
    if kind == 2:
        return zmtp.encode_frame(bytes((rng.randrange(256),)) + body[:40], zmtp.COMMAND)
    if kind == 3:
        return bytes((rng.choice([0x08, 0x10, 0x80, 0xFF]), len(body) & 0xFF)) + body
    if kind == 4:
        return zmtp.encode_frame(b"\x04PING\x00\x01ab", zmtp.COMMAND) + zmtp.encode_frame(body)
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))


def _greeting_breakage(rng: random.Random) -> bytes:
    greeting = bytearray(zmtp.GREETING + zmtp.ready())
    for _ in range(rng.randrange(1, 4)):
        greeting[rng.randrange(len(greeting))] = rng.randrange(256)
    return bytes(greeting[: rng.randrange(len(greeting) + 1)] if rng.random() < 0.3 else greeting)


def fuzz(messages: int, seed: int = 0) -> FuzzReport:
    """Fuzz ``messages`` messages from ``seed``; see the module."""
    rng = random.Random(seed)
    legal_lists = _legal_lists(rng)
    report = FuzzReport()
    safety = _Safety()
    logger = logging.getLogger("arena.referee")
    logger.addHandler(safety)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="arena-fuzz-") as folder:
        harness = Harness(Path(folder))
        harness.connect()
        seat = harness.seat
        next_id = 0
        try:
            for number in range(messages):
                report.messages += 1
                roll = rng.random()
                if roll < 0.1:  # a hello
                    try:
                        _read_hello(fuzz_bot.mutate(rng, HELLO), harness.config.max_message_size, "fuzz")
                        report.outcomes["hello accepted"] += 1
                    except ProtocolFault as fault:
                        _check_fault(fault, report, f"hello {number}")
                    continue
                if roll < 0.13:  # a broken handshake
                    try:
                        harness.connect(_greeting_breakage(rng))
                        report.outcomes["handshake survived"] += 1
                    except LinkFault as fault:
                        _check_fault(fault, report, f"handshake {number}")
                    harness.connect()
                    continue
                # An answer to 1-4 pending requests, as the bot's next frame.
                seat.pending = {}
                for _ in range(rng.randrange(1, 5)):
                    next_id += 1
                    seat.pending[next_id] = Pending(next_id, None, 0, rng.choice(legal_lists), 0.0, 1000, 5000, 0)  # type: ignore[arg-type]
                before = dict(seat.pending)
                target = rng.choice(list(before.values()))
                base = {"type": "action", "id": target.request_id, "action": rng.choice(target.legal)}
                if rng.random() < 0.3:
                    base = {"type": "actions", "actions": [{"id": p.request_id, "action": rng.choice(p.legal)}
                                                           for p in before.values()]}
                try:
                    frame = harness.pump(_frame_breakage(rng, fuzz_bot.mutate(rng, base)))
                except LinkFault as fault:
                    _check_fault(fault, report, f"frame {number}")
                    harness.connect()
                    continue
                if frame is None:  # bytes that make no whole frame (a broken header): start afresh
                    report.outcomes["incomplete frame"] += 1
                    harness.connect()
                    continue
                answered = seat.answers(frame)
                seen = set()
                for n, (pending, outcome) in enumerate(answered):
                    # Once every request is answered, an answer too many (stale) is charged to the
                    # oldest of them again: the only one a request may have twice, and last.
                    again = pending.request_id in seen
                    if pending.request_id not in before or (again and not (
                            n == len(answered) - 1 and isinstance(outcome, ProtocolFault)
                            and outcome.kind.value == "stale")):
                        report.problems.append(f"message {number}: an answer to a request not owed, or twice")
                    seen.add(pending.request_id)
                    if isinstance(outcome, ProtocolFault):
                        _check_fault(outcome, report, f"message {number}")
                    elif not any(outcome is action for action in pending.legal):
                        report.problems.append(f"message {number}: accepted {outcome!r}, not the referee's own copy")
                    else:
                        report.outcomes["accepted"] += 1
                # (A request charged with a frame it could not read stays owed until the table's
                # fault removes it; every other answered one is gone.)
                if not set(seat.pending) <= set(before) or set(seat.pending) - seen != set(before) - seen:
                    report.problems.append(f"message {number}: the requests still owed are wrong")
                if report.problems:
                    break
        finally:
            harness.close()
            logger.removeHandler(safety)
    report.problems += [f"the referee's safety net fired: {text}" for text in safety.fired]
    report.seconds = time.perf_counter() - started
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    report = fuzz(args.messages, args.seed)
    for line in report.lines():
        print(line)
    for problem in report.problems[:10]:
        print(f"problem: {problem}")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
