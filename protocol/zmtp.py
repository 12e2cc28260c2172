"""ZMTP 3.0 with the NULL mechanism, as the referee speaks it to a bot's ``DEALER`` (no I/O here).

ZeroMQ's wire protocol (ZMTP, RFC 23) is small: each side sends a 64-byte greeting, then a
``READY`` command with its socket type, then frames, each a flags byte, a length (one byte, or
eight for a long frame) and the body.  A bot keeps using libzmq (or any ZeroMQ binding); only the
referee's end is this module, because libzmq gives the receiving application no say over what it
buffers: it holds every part of a multi-part message until the last one arrives (whatever their
number: the high-water mark counts whole messages and ``ZMQ_MAXMSGSIZE`` single parts), and it
queues up to the high-water mark of frames per connection, so one bot could fill the referee's
memory.  Reading the frames ourselves, the referee sees each header before its body: a frame
with the MORE flag or over the size bound is refused before a byte of its body is read.

This module only encodes and decodes; :mod:`arena.referee.link` does the socket work.  Every
decoding failure raises :class:`ZmtpError` with the reason in words a bot author can act on.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

__all__ = [
    "COMMAND", "GREETING", "GREETING_SIZE", "LONG", "MAX_COMMAND_SIZE", "MORE", "SOCKET_TYPE", "Frame",
    "ZmtpError", "check_greeting", "encode_frame", "frame_header", "parse_header", "parse_ready", "pong",
    "ready",
]

GREETING_SIZE = 64
# Signature (0xFF, 8 bytes of padding, 0x7F), version 3.0, mechanism NULL (padded to 20 bytes),
# as-server 0, filler.  Version 3.0: a 3.1 peer (libzmq 4.2 and later) talks 3.0 to us.
GREETING = b"\xff" + b"\x00" * 7 + b"\x01\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + b"\x00" * 31
SOCKET_TYPE = b"DEALER"  # the referee's socket type, and the only one a bot may connect

MORE, LONG, COMMAND = 0x01, 0x02, 0x04
MAX_COMMAND_SIZE = 4096  # a READY with its metadata is a few dozen bytes
_SIZE = struct.Struct(">Q")
_PROPERTY_SIZE = struct.Struct(">I")


class ZmtpError(ValueError):
    """The bytes a peer sent are not ZMTP 3 as a bot's DEALER speaks it; the message says why."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame's header: its flags and the size of the body that follows."""

    flags: int
    size: int
    header_size: int

    @property
    def more(self) -> bool:
        return bool(self.flags & MORE)

    @property
    def command(self) -> bool:
        return bool(self.flags & COMMAND)


def check_greeting(data: bytes | bytearray | memoryview) -> None:
    """Raise :class:`ZmtpError` unless the peer's 64 bytes are a ZMTP 3 greeting with the NULL
    mechanism (what every ZeroMQ socket without security sends)."""
    data = bytes(data[:GREETING_SIZE])
    if data[0] != 0xFF or data[9] != 0x7F:
        raise ZmtpError(f"not a ZeroMQ connection (it began with bytes {data[:10].hex()})")
    if data[10] < 3:
        raise ZmtpError(f"ZMTP version {data[10]} (from a libzmq older than 4.0): version 3 is needed")
    mechanism = data[12:32].rstrip(b"\x00")
    if mechanism != b"NULL":
        shown = mechanism.decode("ascii", "replace")[:20]
        raise ZmtpError(f"security mechanism {shown!r}: a bot's socket uses none (NULL)")


def parse_header(data: bytes | bytearray | memoryview, start: int = 0) -> Frame | None:
    """The header of the frame at ``start``, or ``None`` if its bytes have not all come yet."""
    if len(data) - start < 2:
        return None
    flags = data[start]
    if flags & ~(MORE | LONG | COMMAND):
        raise ZmtpError(f"a frame with reserved flag bits set (flags 0x{flags:02x})")
    if flags & LONG:
        if len(data) - start < 9:
            return None
        return Frame(flags, _SIZE.unpack_from(data, start + 1)[0], 9)
    return Frame(flags, data[start + 1], 2)


def frame_header(size: int, flags: int = 0) -> bytes:
    """The header of a frame of ``size`` bytes (short or long, as ZMTP asks)."""
    if size < 256:
        return bytes((flags, size))
    return bytes((flags | LONG,)) + _SIZE.pack(size)


def encode_frame(body: bytes, flags: int = 0) -> bytes:
    """A whole frame: header and body."""
    return frame_header(len(body), flags) + body


def _command(name: bytes, body: bytes) -> bytes:
    return encode_frame(bytes((len(name),)) + name + body, COMMAND)


def ready(socket_type: bytes = SOCKET_TYPE) -> bytes:
    """Our READY command, framed: socket type DEALER and an empty identity, as libzmq's has."""
    body = b""
    for name, value in ((b"Socket-Type", socket_type), (b"Identity", b"")):
        body += bytes((len(name),)) + name + _PROPERTY_SIZE.pack(len(value)) + value
    return _command(b"READY", body)


def command_name(body: bytes | bytearray | memoryview) -> bytes:
    """The name of a command frame's body (``READY``, ``PING``, ...)."""
    if not body or body[0] + 1 > len(body):
        raise ZmtpError("a command frame without a readable name")
    return bytes(body[1: 1 + body[0]])


def parse_ready(body: bytes | bytearray | memoryview) -> dict[bytes, bytes]:
    """The metadata of a READY command's body, or :class:`ZmtpError`."""
    body = bytes(body)
    if command_name(body) != b"READY":
        raise ZmtpError(f"expected the READY command, got {command_name(body)[:16]!r}")
    pos = 1 + body[0]
    properties: dict[bytes, bytes] = {}
    while pos < len(body):
        size = body[pos]
        name = body[pos + 1: pos + 1 + size]
        pos += 1 + size
        if len(name) != size or pos + 4 > len(body):
            raise ZmtpError("a READY command whose metadata is cut short")
        (length,) = _PROPERTY_SIZE.unpack_from(body, pos)
        pos += 4
        if pos + length > len(body):
            raise ZmtpError("a READY command whose metadata is cut short")
        properties[name.lower()] = body[pos: pos + length]
        pos += length
    return properties


def pong(ping_body: bytes | bytearray | memoryview) -> bytes:
    """The PONG that answers a PING (ZMTP 3.1 heartbeats, if a bot's socket sends them): its
    context comes back, after the PING's time-to-live (2 bytes)."""
    body = bytes(ping_body)
    context = body[1 + body[0] + 2:][:16] if body else b""
    return _command(b"PONG", context)
