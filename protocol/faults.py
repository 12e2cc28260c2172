"""The ways a bot can misbehave, as data.

A fault is an *outcome* recorded with the game, never an exception that stops a tournament:
the referee and the bots share these strings (they appear in ``error`` and ``game_over``
messages and in stored game records), so they live here rather than in the referee.
A fault's message is bounded and escaped (:mod:`protocol.text`) whatever the bot sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from protocol.text import bounded

__all__ = ["Fault", "FaultKind", "ProtocolFault"]


class FaultKind(StrEnum):
    """Why a bot forfeited a game (or a match, for ``DISQUALIFIED``)."""

    TIMEOUT = "timeout"  # no answer within the decision deadline or the game budget
    CRASH = "crash"  # the process exited or died
    MALFORMED = "malformed"  # a frame that is not UTF-8 JSON
    SCHEMA = "schema"  # JSON, but not a valid message (or not the one expected now)
    ILLEGAL = "illegal"  # a well-formed action that is not in the legal set
    PROTOCOL_VERSION = "protocol_version"  # the hello names another protocol version
    STALE = "stale"  # an action whose id is not the outstanding request's
    STARTUP = "startup"  # no hello within the start-up limit, or could not start
    TOO_LARGE = "too_large"  # a message over the size bound (refused from its header, before its body is read)
    DISCONNECTED = "disconnected"  # the connection dropped while the process lived (it closed its socket)
    DISQUALIFIED = "disqualified"  # several faults in a row: removed from the match
    MULTIPART = "multipart"  # a message of several ZeroMQ frames (a message is one frame)
    UNREAD = "unread"  # left more of the referee's messages unread than any bot that plays can


@dataclass(frozen=True, slots=True)
class Fault:
    """One recorded fault: its kind and a message a bot author can act on."""

    kind: FaultKind
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "message": self.message}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Fault":
        return cls(FaultKind(data["kind"]), str(data["message"]))


class ProtocolFault(Exception):
    """Raised while decoding a bot's frame; carries the :class:`Fault` to record.

    Decoding is the one place where an exception is the natural shape (the failure is deep in
    a parser); callers catch it at once and turn it into the recorded outcome.  The message is
    cut to :data:`~protocol.text.MESSAGE_LIMIT` bytes and escaped: it often quotes the bot.
    """

    def __init__(self, kind: FaultKind, message: str) -> None:
        message = bounded(message)
        super().__init__(message)
        self.fault = Fault(kind, message)

    @property
    def kind(self) -> FaultKind:
        return self.fault.kind
