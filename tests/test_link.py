"""The referee's end of a bot's socket (arena.referee.link) against real peers over real sockets.

A pyzmq DEALER is what every bot connects; raw Unix sockets play the hostile bot that writes
ZMTP by hand.  What is checked: the handshake and messages both ways, and that whatever the peer
sends, the link holds no more than one frame of it and one connection.
"""

from __future__ import annotations

import errno
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from arena.referee.link import READ_CHUNK, BotLink, LinkFault
from protocol import zmtp
from protocol.faults import FaultKind

LIMIT = 1 << 20
WAIT_S = 10.0  # generous: the machine is shared


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "bot.sock"


@pytest.fixture
def link(path: Path) -> Iterator[BotLink]:
    made = BotLink(path, max_message_size=LIMIT)
    yield made
    made.close()


@pytest.fixture
def dealer(path: Path) -> Iterator[zmq.Socket]:
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"ipc://{path}")
    yield sock
    sock.close()
    ctx.term()


def until(step, what: str = "the link"):
    """Call ``step`` until it returns something (or raises): the peer's bytes take a moment."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        result = step()
        if result is not None:
            return result
        time.sleep(0.002)
    raise AssertionError(f"{what} got nothing within {WAIT_S} s")


def raw_peer(path: Path, *, socket_type: bytes = b"DEALER") -> socket.socket:
    """A hand-written ZMTP peer that has done the handshake (the link still has to read it)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    sock.sendall(zmtp.GREETING + zmtp.ready(socket_type))
    return sock


def test_a_zeromq_dealer_talks_to_the_link_both_ways(link: BotLink, dealer: zmq.Socket) -> None:
    dealer.send(b'{"type": "hello"}')
    assert until(link.handshake) == b'{"type": "hello"}'
    assert link.open and link.send(b"x" * 300) and link.send(b"welcome")  # a long frame, then a short one
    assert dealer.recv() == b"x" * 300 and dealer.recv() == b"welcome"
    for size in (0, 1, 255, 256, 70_000, LIMIT):
        dealer.send(b"y" * size)
        assert until(link.recv) == b"y" * size


def test_a_second_connection_is_refused_by_the_kernel(link: BotLink, dealer: zmq.Socket, path: Path) -> None:
    """The first connection is the bot's one; the socket then stops listening and its name goes,
    so no number of connections can cost the referee a descriptor."""
    dealer.send(b"hello")
    until(link.handshake)
    assert not path.exists()
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with pytest.raises(OSError) as refused:
        other.connect(str(path))
    assert refused.value.errno in (errno.ENOENT, errno.ECONNREFUSED)
    other.close()


def test_a_multipart_message_is_refused_at_its_first_frame(link: BotLink, path: Path) -> None:
    """libzmq held every part of such a message in the referee until the last part came: a bot
    writing countless parts by hand (its own libzmq would send none before the last) filled the
    referee's memory.  The link refuses the first frame with MORE."""
    peer = raw_peer(path)
    peer.sendall(zmtp.encode_frame(b"hello"))
    until(link.handshake)
    peer.setblocking(False)
    part = zmtp.encode_frame(b"p" * 60_000, zmtp.MORE)
    with pytest.raises(BlockingIOError):
        for _ in range(200):  # 12 MB of parts, and no last one: the kernel's buffer fills first
            peer.sendall(part)
    with pytest.raises(LinkFault) as caught:
        until(link.recv)
    assert caught.value.kind is FaultKind.MULTIPART
    assert len(link._in) <= READ_CHUNK + LIMIT  # noqa: SLF001 - what the link holds is the point
    peer.close()


def test_an_oversized_frame_is_refused_from_its_header(link: BotLink, path: Path) -> None:
    """The size is read from the header: the body is never read (nor held), and the fault names
    the frame's real size (libzmq's cut-off could only say the connection dropped)."""
    peer = raw_peer(path)
    peer.sendall(zmtp.frame_header(5) + b"hello")
    assert until(link.handshake) == b"hello"
    peer.sendall(zmtp.frame_header(8 << 20) + b"z" * 100_000)
    with pytest.raises(LinkFault) as caught:
        until(link.recv)
    assert (caught.value.kind, caught.value.fault.message) == (
        FaultKind.TOO_LARGE, f"message of {8 << 20} bytes (the limit is {LIMIT})")
    assert len(link._in) < 2 * READ_CHUNK  # noqa: SLF001
    peer.close()


@pytest.mark.parametrize(("sent", "message"), [
    (b"GET / HTTP/1.1\r\n" + b"x" * 60, "not a ZeroMQ connection (it began with bytes 474554202f2048545450)"),
    (zmtp.GREETING[:10] + b"\x02" + zmtp.GREETING[11:], "ZMTP version 2 (from a libzmq older than 4.0)"),
    (zmtp.GREETING[:12] + b"PLAIN".ljust(20, b"\0") + zmtp.GREETING[32:], "security mechanism 'PLAIN'"),
    (zmtp.GREETING + zmtp.ready(b"ROUTER"), "it connected a ZeroMQ ROUTER socket; the protocol needs a DEALER"),
    (zmtp.GREETING + zmtp.encode_frame(b"\x05READY\x0bSocket-Type\xff\xff\xff\xffDEALER", zmtp.COMMAND),
     "metadata is cut short"),
    (zmtp.GREETING + zmtp.encode_frame(b"hello"), "a message before its ZeroMQ handshake was done"),
    (zmtp.GREETING + b"\x04\xff" + b"\0" * 255, "expected the READY command"),
])
def test_a_peer_that_does_not_speak_zeromq_is_refused_with_a_reason(link: BotLink, path: Path, sent: bytes,
                                                                      message: str) -> None:
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    peer.connect(str(path))
    peer.sendall(sent)
    with pytest.raises(LinkFault) as caught:
        until(link.handshake)
    assert caught.value.kind is FaultKind.MALFORMED
    assert message in caught.value.fault.message, caught.value.fault.message
    peer.close()


def test_frames_a_dealer_never_sends_are_malformed(link: BotLink, path: Path) -> None:
    peer = raw_peer(path)
    peer.sendall(zmtp.encode_frame(b"hello"))
    until(link.handshake)
    peer.sendall(b"\x08\x01x")  # a reserved flag bit
    with pytest.raises(LinkFault) as caught:
        until(link.recv)
    assert caught.value.kind is FaultKind.MALFORMED and "reserved flag bits" in caught.value.fault.message
    peer.close()


def test_a_heartbeat_is_answered_and_is_no_message(link: BotLink, path: Path) -> None:
    """A bot's ZeroMQ socket may send ZMTP 3.1 heartbeats (PING); the link answers PONG."""
    peer = raw_peer(path)
    peer.sendall(zmtp.encode_frame(b"hello"))
    until(link.handshake)
    peer.sendall(zmtp.encode_frame(b"\x04PING\x00\x10ctx", zmtp.COMMAND) + zmtp.encode_frame(b"after"))
    assert until(link.recv) == b"after"
    peer.settimeout(WAIT_S)
    reply = peer.recv(4096)
    assert reply.endswith(zmtp.encode_frame(b"\x04PONGctx", zmtp.COMMAND)), reply
    peer.sendall(zmtp.encode_frame(b"\x05HELLO", zmtp.COMMAND))
    with pytest.raises(LinkFault) as caught:
        until(link.recv)
    assert "'HELLO' command" in caught.value.fault.message
    peer.close()


def test_a_peer_that_never_reads_is_cut_off_not_buffered_for_ever(path: Path) -> None:
    link = BotLink(path, max_message_size=LIMIT, unread_limit=1 << 20)
    peer = raw_peer(path)
    peer.sendall(zmtp.encode_frame(b"hello"))
    until(link.handshake)
    message = b"m" * 10_000
    sent = 0
    while link.send(message):
        sent += 1
        assert sent < 10_000, "the link took output without bound"
    assert link.failure is not None and link.failure.kind is FaultKind.UNREAD
    assert len(link._out) <= (1 << 20) + len(message) + 9  # noqa: SLF001
    link.close()
    peer.close()


def test_a_peer_that_closes_is_dropped_and_what_it_sent_before_is_still_read(link: BotLink, path: Path) -> None:
    peer = raw_peer(path)
    peer.sendall(zmtp.encode_frame(b"hello") + zmtp.encode_frame(b"last words"))
    peer.close()
    assert until(link.handshake) == b"hello"
    assert until(link.recv) == b"last words"
    assert link.recv() is None and link.dropped
    assert not link.send(b"anyone?")


def test_a_frame_header_that_comes_byte_by_byte_is_read_whole(link: BotLink, path: Path) -> None:
    peer = raw_peer(path)
    whole = zmtp.encode_frame(b"hello") + b"\x02" + struct.pack(">Q", 300) + b"q" * 300
    hello = len(zmtp.encode_frame(b"hello"))
    for i in range(len(whole) - 1):
        peer.sendall(whole[i: i + 1])
        if i == hello - 1:
            assert until(link.handshake) == b"hello"
        elif i >= hello:
            assert link.recv() is None  # (each byte read as it comes: tiny writes fill a socket's buffer)
    peer.sendall(whole[-1:])
    assert until(link.recv) == b"q" * 300
    peer.close()
