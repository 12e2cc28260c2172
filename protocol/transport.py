"""The ZeroMQ link between a bot and the referee: a DEALER pair over ``ipc://``.

The referee listens on ``ipc://<private dir>/bot.sock`` and starts the bot with that endpoint;
the bot connects its own DEALER (:meth:`Channel.connect`, as the SDK does).  DEALER/DEALER has no
request/reply lock-step, so a late or duplicate answer can never wedge a socket (it is simply a
``stale`` fault).

The referee's end is not this class but :mod:`arena.referee.link`, which speaks ZeroMQ's wire
protocol itself so that what a bot sends costs it only a bounded amount; :meth:`Channel.bind`
is a libzmq referee's end for tests and tools, which a bot can not tell apart from it.

Each :class:`Channel` also watches its socket's monitor for a dropped connection.  That is how
a bot notices that the referee went away without waiting out a timeout.
"""

from __future__ import annotations

import os
import struct
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import zmq

from protocol import codec
from protocol.messages import DEFAULT_MAX_MESSAGE_SIZE

__all__ = ["ENDPOINT_ENV", "SOCKET_NAME", "Channel", "bot_endpoint", "endpoint_from", "private_endpoint"]

ENDPOINT_ENV = "ARENA_ENDPOINT"
SOCKET_NAME = "bot.sock"
# sun_path is 108 bytes on Linux, including the terminating NUL.
_MAX_IPC_PATH = 107


def bot_endpoint(directory: str | os.PathLike[str]) -> str:
    """The endpoint of the bot socket in ``directory``; refuses paths a Unix socket can't hold."""
    path = os.path.join(os.fspath(directory), SOCKET_NAME)
    if len(os.fsencode(path)) > _MAX_IPC_PATH:
        raise ValueError(f"ipc socket path too long ({len(path)} bytes, at most {_MAX_IPC_PATH}): {path}")
    return f"ipc://{path}"


def private_endpoint(parent: str | os.PathLike[str] | None = None) -> tuple[str, Path]:
    """A fresh private (0700) directory and the bot endpoint inside it; the caller removes it."""
    directory = Path(tempfile.mkdtemp(prefix="arena-", dir=parent))
    return bot_endpoint(directory), directory


def endpoint_from(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The endpoint a bot was given: ``$ARENA_ENDPOINT``, else ``argv[1]``, else ``None``.

    The referee always sets the variable; the command line has the endpoint too, but at its end
    (``argv[1]`` only for a bare script), so a bot started as ``python3 bot.py --fast`` must
    read the variable.  ``argv[1]`` serves a bot started by hand."""
    argv = sys.argv if argv is None else argv
    environ = os.environ if environ is None else environ
    if environ.get(ENDPOINT_ENV):
        return environ[ENDPOINT_ENV]
    if len(argv) > 1 and argv[1]:
        return argv[1]
    return None


class Channel:
    """One end of a bot's socket pair: send and receive single-frame JSON messages.

    ``dropped`` is true after :meth:`recv_bytes` returned ``None`` because the peer's
    connection dropped rather than because the timeout ran out, and after a send found no peer.
    ``watched`` are the sockets to poll for it (its socket, and its monitor if any), for a caller
    that waits on many at once.
    """

    def __init__(self, socket: zmq.Socket, *, watch: bool = True) -> None:
        self.socket = socket
        self.dropped = False
        self._poller = zmq.Poller()
        self._poller.register(socket, zmq.POLLIN)
        self._monitor: zmq.Socket | None = None
        if watch:
            self._monitor = socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
            self._poller.register(self._monitor, zmq.POLLIN)
        self.watched: tuple[zmq.Socket, ...] = (socket,) if self._monitor is None else (socket, self._monitor)

    @classmethod
    def bind(
        cls,
        endpoint: str,
        *,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        context: zmq.Context | None = None,
        watch: bool = True,
    ) -> "Channel":
        """A referee's end in libzmq (tests, tools): libzmq drops the connection of a peer that sends
        a bigger frame."""
        socket = (context or zmq.Context.instance()).socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.MAXMSGSIZE, max_message_size)
        channel = cls(socket, watch=watch)
        socket.bind(endpoint)
        return channel

    @classmethod
    def connect(cls, endpoint: str, *, context: zmq.Context | None = None, watch: bool = True) -> "Channel":
        """The bot's end."""
        socket = (context or zmq.Context.instance()).socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.connect(endpoint)
        return cls(socket, watch=watch)

    def send_bytes(self, frame: bytes) -> bool:
        """Queue one frame; ``False`` (and ``dropped``) if no peer can take it (never blocks)."""
        try:
            self.socket.send(frame, zmq.NOBLOCK)
        except zmq.Again:
            self.dropped = True
            return False
        return True

    def send(self, msg: Any) -> bool:
        """Encode and queue one message; ``False`` if no peer can take it (never blocks)."""
        return self.send_bytes(codec.dumps(msg))

    def recv_nowait(self) -> bytes | None:
        """The next frame if one is already queued, else ``None`` (cheaper than a poll)."""
        try:
            return self.socket.recv(zmq.NOBLOCK)
        except zmq.Again:
            return None

    def recv_bytes(self, timeout_ms: int | None) -> bytes | None:
        """The next frame; ``None`` after ``timeout_ms`` (``None``: wait for ever) or a drop."""
        self.dropped = False
        if self._monitor is None:
            if self.socket.poll(timeout_ms, zmq.POLLIN):
                return self.socket.recv()
            return None
        deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
        ready = dict(self._poller.poll(timeout_ms))
        while True:
            # A frame that arrived before the drop is still delivered first.
            if self.socket in ready:
                return self.socket.recv()
            if self._monitor not in ready or self.note_drop():
                return None  # the time is up, or the connection dropped
            # A monitor event that is no drop: no frame yet, so wait on for the rest of the time.
            left = None if deadline is None else max(0, round((deadline - time.monotonic()) * 1000))
            ready = dict(self._poller.poll(left))

    def note_drop(self) -> bool:
        """After a poll flagged the monitor: consume its events, and report (and set ``dropped``)
        whether the connection dropped with no frame left to read (frames can land in the queue
        just after the event, so the socket gets one last look)."""
        if self._monitor is None:
            return False
        disconnected = False
        while self._monitor.poll(0):
            if _monitor_event(self._monitor.recv_multipart()) == zmq.EVENT_DISCONNECTED:
                disconnected = True
        self.dropped = disconnected and not self.socket.poll(0)
        return self.dropped

    def recv(self, timeout_ms: int | None) -> Any | None:
        """The next message, decoded but not validated; ``None`` as for :meth:`recv_bytes`."""
        frame = self.recv_bytes(timeout_ms)
        return None if frame is None else codec.loads(frame)

    def close(self) -> None:
        """Close without lingering: unsent messages are dropped on purpose."""
        if self._monitor is not None:
            self.socket.disable_monitor()
            self._monitor.close(linger=0)
            self._monitor = None
        self.socket.close(linger=0)

    def __enter__(self) -> "Channel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _monitor_event(frames: list[bytes]) -> int:
    """The event number of one message from a libzmq monitor socket: its first frame starts with
    the event as a 16-bit number in the machine's byte order.  Read here rather than with
    ``zmq.utils.monitor``, which imports asyncio: a third of a bot's start-up."""
    return struct.unpack_from("=H", frames[0])[0] if frames and len(frames[0]) >= 2 else 0
