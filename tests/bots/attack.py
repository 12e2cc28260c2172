"""Attacker: plays its first decision, then tries to exhaust the referee's memory or descriptors.

Run as ``attack.py ENDPOINT MODE [MB]``.  It speaks ZeroMQ's wire protocol (ZMTP) by hand over the Unix
socket (standing alone: it needs no module of the referee's), as a hostile bot may (its own libzmq would send no part of a multi-part message before
the last, and queue what the referee does not read in the bot's memory).  By MODE, after its
first answer:

- ``multipart``: one message of countless parts (64 KB frames with the MORE flag, never a last);
- ``bigframes``: 8 MiB frames, one after another;
- ``smallflood``: small frames without end (answers to requests never made);
- ``heartbeats``: ZeroMQ heartbeat commands (PING) without end, never reading the PONGs;

and, before its hello, ``hellobeats``: heartbeats without end instead of a hello (a referee that
answered them in a loop never looked at its start-up limit, or at any other seat);

and, also before its hello, ``connections``: 5,000 connections to its socket opened and closed (it may
hold 256 descriptors at once), then its own.  ``lateconnections`` makes them after its welcome,
then plays on.  With MB, a flood stops after that many megabytes (to measure a referee that keeps
what it is sent without filling the machine).  It reports on stderr how far it got.
"""
import json
import os
import socket
import sys
import time

# ZMTP 3.0 by hand (RFC 23): greeting, a DEALER's READY command, frames (flags, size, body).
GREETING = b"\xff" + b"\x00" * 7 + b"\x01\x7f\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" * 32
MORE, LONG, COMMAND = 1, 2, 4


def encode_frame(body: bytes, flags: int = 0) -> bytes:
    if len(body) < 256:
        return bytes((flags, len(body))) + body
    return bytes((flags | LONG,)) + len(body).to_bytes(8, "big") + body


def dumps(msg: object) -> bytes:
    return json.dumps(msg).encode()


READY = encode_frame(b"\x05READY\x0bSocket-Type" + (6).to_bytes(4, "big") + b"DEALER", COMMAND)

endpoint, mode = sys.argv[1], sys.argv[2]
# A test marks its bots with a last word of their command line: only a number is a cap.
cap = int(sys.argv[3]) << 20 if len(sys.argv) > 3 and sys.argv[3].isdigit() else None
path = endpoint.removeprefix("ipc://")


def connections(count: int) -> str:
    opened = refused = 0
    for _ in range(count):
        extra = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        extra.setblocking(False)
        try:
            extra.connect(path)
            opened += 1
        except OSError:
            refused += 1
        extra.close()
    return f"{opened} connections made, {refused} refused"


if mode == "connections":
    sys.stderr.write(f"attack: before the hello, {connections(5000)}\n")
    sys.stderr.flush()

sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(path)
sock.sendall(GREETING + READY)
buffer = b""


def read_exactly(size: int) -> bytes:
    global buffer
    while len(buffer) < size:
        chunk = sock.recv(65536)
        if not chunk:
            sys.exit(0)
        buffer += chunk
    data, buffer = buffer[:size], buffer[size:]
    return data


def read_frame() -> bytes:
    flags = read_exactly(1)[0]
    size = int.from_bytes(read_exactly(8), "big") if flags & LONG else read_exactly(1)[0]
    body = read_exactly(size)
    return read_frame() if flags & COMMAND else body


PING = encode_frame(b"\x04PING\x00\x00", COMMAND)  # a heartbeat: its time-to-live, no context


def heartbeats() -> None:
    sent = 0
    started = time.monotonic()
    try:
        while cap is None or sent < cap:
            sock.sendall(PING * 4096)
            sent += len(PING) * 4096
    except OSError as exc:
        sys.stderr.write(f"attack: heartbeats: {sent // len(PING)} sent in {time.monotonic() - started:.1f} s, "
                         f"then {os.strerror(exc.errno or 0)}\n")
        sys.exit(0)
    sys.stderr.write(f"attack: heartbeats: {sent // len(PING)} sent in {time.monotonic() - started:.1f} s\n")


read_exactly(len(GREETING))
if mode == "hellobeats":
    heartbeats()
    sys.exit(0)
sock.sendall(encode_frame(dumps({"type": "hello", "protocol": 1, "name": f"attack-{mode}"})))
answered = 0
while True:
    msg = json.loads(read_frame())
    if msg["type"] in ("shutdown", "error"):
        break
    if msg["type"] == "welcome" and mode == "lateconnections":
        sys.stderr.write(f"attack: after the welcome, {connections(5000)}\n")
        sys.stderr.flush()
    if msg["type"] != "request":
        continue
    sock.sendall(encode_frame(dumps({"type": "action", "id": msg["id"], "action": msg["legal"][0]})))
    answered += 1
    if mode in ("lateconnections", "connections"):
        continue
    if mode == "heartbeats":
        heartbeats()
        break
    flood = {
        "multipart": encode_frame(b"p" * 65536, MORE),
        "bigframes": encode_frame(b"b" * (8 << 20)),
        "smallflood": encode_frame(dumps({"type": "action", "id": 10**9, "action": {"type": "stop"}})) * 1000,
    }[mode]
    sent = 0
    started = time.monotonic()
    try:
        while cap is None or sent < cap:
            sock.sendall(flood)
            sent += len(flood)
    except OSError as exc:
        sys.stderr.write(f"attack: {mode}: {sent} bytes sent in {time.monotonic() - started:.1f} s, "
                         f"then {os.strerror(exc.errno or 0)}\n")
        break
    sys.stderr.write(f"attack: {mode}: {sent} bytes sent in {time.monotonic() - started:.1f} s\n")
