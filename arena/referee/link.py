"""The referee's end of one bot's connection: ZMTP over a Unix socket, bounded whatever the bot sends.

A bot connects a ZeroMQ ``DEALER`` to ``ipc://<its folder>/bot.sock``, as the protocol says; the
referee's end is not libzmq but this small reader of the same wire protocol
(:mod:`protocol.zmtp`), so that what a bot sends can cost the referee only a bounded amount:

- **one connection.** The socket listens for one: the first is accepted, then the listening
  socket is closed and its name removed, so no number of further connections (before the hello
  or after) costs a descriptor; they are refused by the kernel.
- **one frame at a time, read only when owed.** The referee reads a bot's socket only while it
  owes an answer, and then frame by frame: each header is checked before its body is read, so a
  frame over the size bound (``too_large``) or one of a multi-part message (``multipart``) is a
  fault at once, and what a bot sends while it owes nothing waits in the kernel's socket buffer
  (a couple of hundred KB at most), not in the referee.  At most one frame (the size bound) and
  one read (64 KB) are held per bot.
- **a bounded backlog the other way.** A bot that does not read its messages leaves them in
  the kernel's buffer and then in the link's; past :data:`UNREAD_LIMIT` bytes it is cut off
  (``unread``).

Nothing here blocks: sockets are non-blocking, and the table polls :meth:`BotLink.fileno` for
reading (when an answer is owed) and writing (when output is waiting).
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from pathlib import Path

from protocol import zmtp
from protocol.faults import FaultKind, ProtocolFault

__all__ = ["HEARTBEATS_PER_MESSAGE", "LISTEN_BACKLOG", "READ_CHUNK", "READS_PER_CALL", "UNREAD_LIMIT", "BotLink", "LinkFault", "Links"]

READ_CHUNK = 64 * 1024  # bytes asked of the kernel per read
# Reads per call for a frame: enough for a frame of the size bound in the kernel's usual pieces,
# few enough that a bot can hold the referee in one call for no more than a few milliseconds.
READS_PER_CALL = 32
# Heartbeat commands (PING, PONG) a bot may send between two of its messages: libzmq sends one per heartbeat
# interval (off unless a bot sets ZMQ_HEARTBEAT_IVL); a stream of them is a flood, each answered
# with a PONG at the referee's cost.
HEARTBEATS_PER_MESSAGE = 10_000
UNREAD_LIMIT = 8 * 1024 * 1024  # bytes a bot may leave unread: more than a round of requests (64 large ones: 3 MB)
LISTEN_BACKLOG = 1  # connections the kernel holds before the first is accepted

# States of a link: waiting for its connection, for the peer's greeting, for its READY, then open.
_LISTENING, _GREETING, _READY, _OPEN = range(4)
_GONE = {errno.ECONNRESET, errno.EPIPE, errno.ENOTCONN, errno.ESHUTDOWN}


class LinkFault(ProtocolFault):
    """A fault in the bytes of the connection itself (a multi-part or oversized frame, bytes that
    are not ZMTP): nothing after it can be read, so the bot can not go on."""


class BotLink:
    """The referee's end of one bot's socket (see the module).

    ``dropped`` is true once the peer closed its end (or the connection broke).  ``failure`` is
    the fault that ended the link from the referee's side (a bot that leaves its messages
    unread), if any.  Reading raises :class:`ProtocolFault` for what a bot must not send."""

    def __init__(self, path: str | os.PathLike[str], *, max_message_size: int,
                 unread_limit: int = UNREAD_LIMIT) -> None:
        self.path = Path(path)
        self.max_message_size = max_message_size
        self.unread_limit = unread_limit
        self.dropped = False
        self.failure: ProtocolFault | None = None
        self._eof = False  # the peer's end is closed for reading (what it sent before is still read)
        self._state = _LISTENING
        self._conn: socket.socket | None = None
        self._in = bytearray()
        self._start = 0  # where the unread part of ``_in`` begins
        self._out = bytearray()
        self._heartbeats = 0  # PINGs since the bot's last message
        self._closed = False
        self._listener: socket.socket | None = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._listener.setblocking(False)
            self._listener.bind(os.fspath(self.path))
            self._listener.listen(LISTEN_BACKLOG)
        except BaseException:
            self._listener.close()
            raise

    # -- polling ---------------------------------------------------------------------------------

    def fileno(self) -> int:
        """The descriptor to poll: the listening socket until the bot connected, then its connection
        (-1 once closed)."""
        sock = self._conn or self._listener
        return -1 if sock is None else sock.fileno()

    @property
    def open(self) -> bool:
        """Whether the handshake is done and messages flow."""
        return self._state == _OPEN and not self._closed

    @property
    def writing(self) -> bool:
        """Whether output is waiting for the socket to take it (poll for writing)."""
        return bool(self._out) and not self.dropped

    # -- the handshake ---------------------------------------------------------------------------

    def handshake(self) -> bytes | None:
        """Go as far as the bytes that have come allow: accept the connection, exchange greetings
        and READY commands; return the bot's first message once it is complete, else ``None``.
        Raises :class:`ProtocolFault` (``malformed``) for bytes that are not a bot's ZeroMQ DEALER."""
        if self._state == _LISTENING:
            if not self._accept():
                return None
        if self._state == _GREETING:
            while len(self._in) - self._start < zmtp.GREETING_SIZE:
                if not self._fill(zmtp.GREETING_SIZE):
                    return None
            try:
                zmtp.check_greeting(bytes(self._in[self._start: self._start + zmtp.GREETING_SIZE]))
            except zmtp.ZmtpError as exc:
                raise LinkFault(FaultKind.MALFORMED, f"its connection does not speak ZeroMQ's protocol: {exc}") from None
            self._start += zmtp.GREETING_SIZE
            self._state = _READY
        if self._state == _READY:
            body = self._next(command=True)
            if body is None:
                return None
            try:
                properties = zmtp.parse_ready(body)
            except zmtp.ZmtpError as exc:
                raise LinkFault(FaultKind.MALFORMED, f"its ZeroMQ handshake is broken: {exc}") from None
            kind = properties.get(b"socket-type", b"")
            if kind != zmtp.SOCKET_TYPE:
                shown = kind.decode("ascii", "replace")[:20]
                raise LinkFault(FaultKind.MALFORMED, f"it connected a ZeroMQ {shown or 'untyped'} socket; the "
                                                         "protocol needs a DEALER")
            self._state = _OPEN
        return self.recv()

    def _accept(self) -> bool:
        """Take the first connection; from then on no other can be made."""
        assert self._listener is not None
        try:
            conn, _ = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return False
        conn.setblocking(False)
        self._conn = conn
        self._stop_listening()
        self._state = _GREETING
        # Both greetings and READY commands may cross: ours goes at once.
        self._queue(zmtp.GREETING + zmtp.ready())
        return True

    def _stop_listening(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    # -- reading ---------------------------------------------------------------------------------

    def recv(self) -> bytes | None:
        """The next whole message if its bytes have come (reading what the socket holds), else
        ``None``.  Raises :class:`ProtocolFault` for a frame of a multi-part message, one over the
        size bound, or bytes that are not ZMTP."""
        if self._state != _OPEN:
            return None
        return self._next(command=False)

    def _next(self, *, command: bool) -> bytes | None:
        """The body of the next frame (a command while the handshake expects one), or ``None``.

        At most :data:`READS_PER_CALL` reads from the socket per call: heartbeats are answered and
        skipped here, and a bot that sent them without end (each read brings more) kept the
        referee in this loop, where no deadline of any seat was looked at.  What is left waits
        in the kernel, so the next poll finds the socket readable again."""
        reads = 0
        while True:
            frame = self._header()
            if frame is not None:
                if frame.more:
                    raise LinkFault(FaultKind.MULTIPART, f"a message of several frames (its first of {frame.size} "
                                                             "bytes has ZeroMQ's MORE flag): one frame per message")
                limit = zmtp.MAX_COMMAND_SIZE if frame.command else self.max_message_size
                if frame.size > limit:
                    if frame.command:
                        raise LinkFault(FaultKind.MALFORMED, f"a ZeroMQ command of {frame.size} bytes")
                    raise LinkFault(FaultKind.TOO_LARGE, f"message of {frame.size} bytes (the limit is {limit})")
                end = self._start + frame.header_size + frame.size
                if len(self._in) >= end:
                    with memoryview(self._in) as view:  # one copy, and no export left behind
                        body = bytes(view[self._start + frame.header_size: end])
                    self._start = end
                    if frame.command and not command:
                        self._command(body)  # a heartbeat, answered; anything else is a fault
                        if self.failure is not None:  # its PONGs left unread: cut off now
                            raise LinkFault(self.failure.kind, self.failure.fault.message)
                        continue
                    if command and not frame.command:
                        raise LinkFault(FaultKind.MALFORMED, "a message before its ZeroMQ handshake was done")
                    self._heartbeats = 0
                    return body
            if reads == READS_PER_CALL or not self._fill(frame.header_size + frame.size if frame else 9):
                return None
            reads += 1

    def _header(self) -> zmtp.Frame | None:
        try:
            return zmtp.parse_header(self._in, self._start)
        except zmtp.ZmtpError as exc:
            raise LinkFault(FaultKind.MALFORMED, f"not a ZeroMQ frame: {exc}") from None

    def _command(self, body: bytes) -> None:
        """A command after the handshake: PING (a heartbeat a bot's socket may send) is answered
        with PONG; no other command belongs to a DEALER's conversation."""
        try:
            name = zmtp.command_name(body)
        except zmtp.ZmtpError as exc:
            raise LinkFault(FaultKind.MALFORMED, f"not a ZeroMQ frame: {exc}") from None
        if name not in (b"PING", b"PONG"):
            shown = name.decode("ascii", "replace")[:16]
            raise LinkFault(FaultKind.MALFORMED, f"a ZeroMQ {shown!r} command, which a DEALER does not send")
        self._heartbeats += 1
        if self._heartbeats > HEARTBEATS_PER_MESSAGE:
            raise LinkFault(FaultKind.MALFORMED, f"more than {HEARTBEATS_PER_MESSAGE} ZeroMQ heartbeat commands "
                                                 "without a message: a flood, not a heartbeat")
        if name == b"PING":
            self._queue(zmtp.pong(body))

    def _fill(self, needed: int) -> bool:
        """Read once from the socket (at most what the frame being read still needs, or a
        chunk); False if nothing came (nothing waiting, or the peer closed its end)."""
        if self._conn is None or self._eof:
            return False
        if self._start and (self._start == len(self._in) or self._start > READ_CHUNK):
            del self._in[: self._start]  # keep only the unread part
            self._start = 0
        want = max(READ_CHUNK, needed - (len(self._in) - self._start))
        try:
            data = self._conn.recv(min(want, self.max_message_size + 16))
        except (BlockingIOError, InterruptedError):
            return False
        except OSError as exc:
            if exc.errno not in _GONE:
                raise
            data = b""
        if not data:
            self._eof = self.dropped = True
            return False
        self._in += data
        return True

    # -- writing ---------------------------------------------------------------------------------

    def send(self, message: bytes) -> bool:
        """Send one message (one frame) without blocking; what the socket can not take now waits
        here.  False if the peer is gone, or has left too much unread (then ``failure`` says so)."""
        if self._conn is None or self.dropped or self.failure is not None or self._closed:
            return False
        self._queue(zmtp.frame_header(len(message)) + message)
        return not self.dropped and self.failure is None

    def _queue(self, data: bytes) -> None:
        if self._out:
            self._out += data
        else:
            sent = self._write(data)
            if 0 <= sent < len(data):
                self._out += data[sent:]
        if len(self._out) > self.unread_limit:
            self.failure = ProtocolFault(
                FaultKind.UNREAD, f"the bot left more than {self.unread_limit} bytes of the referee's messages unread")

    def flush(self) -> None:
        """Give the socket what it takes of the waiting output (after a poll said it can write)."""
        if not self._out:
            return
        with memoryview(self._out) as view:
            sent = self._write(view)
        if sent < 0:
            self._out.clear()
        else:
            del self._out[:sent]

    def _write(self, data: bytes | memoryview) -> int:
        """Bytes the socket took now (0 if none); -1 if the peer is gone (``dropped``)."""
        assert self._conn is not None
        try:
            return self._conn.send(data, socket.MSG_NOSIGNAL)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError as exc:
            if exc.errno not in _GONE:
                raise
            self.dropped = True
            return -1

    # -- closing ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (what was not sent is dropped on purpose) and the socket's name."""
        if self._closed:
            return
        self._closed = True
        self._stop_listening()
        if self._conn is not None:
            self._conn.close()
        self._in = bytearray()
        self._out = bytearray()


class Links:
    """Every link one referee opened, so that closing the referee closes them all: Ctrl-C can
    land between a link being made and a seat keeping it."""

    def __init__(self) -> None:
        self._open: set[BotLink] = set()

    def open(self, path: str | os.PathLike[str], *, max_message_size: int) -> BotLink:
        link = BotLink(path, max_message_size=max_message_size)
        self._open.add(link)
        return link

    def close(self, link: BotLink) -> None:
        link.close()
        self._open.discard(link)

    def close_all(self) -> None:
        for link in list(self._open):
            self.close(link)

    def __len__(self) -> int:
        return len(self._open)
