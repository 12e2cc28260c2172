"""Zoo: misbehaves at the protocol level, without the SDK; the mode is the file name's suffix.

Run as ``zoo_raw.py ENDPOINT MODE``: garbage (not JSON), badjson (truncated JSON), schema (JSON
but not a valid message), huge (a message over the size bound), twice (answers every request
twice), close (closes its socket and lingers), version (hello with protocol 99), badhello (a
hello with a key the schema does not allow), deep (an action nested 300 levels deep: readable,
but too deep to be encoded again), deeptype and deephello (an answer, or a hello, whose type is
nested 1,000 deep), longtype (an answer whose type is 900 KB long), longhello (a hello with a
900 KB key), second (once welcomed, tries a second connection to its
socket, raw and with ZeroMQ, says on stderr what became of it, and plays on), junkfirst (its
first connection to the socket is a raw one that sends garbage; its DEALER's comes second).
"""
import json
import os
import socket
import sys
import time

import zmq

endpoint, mode = sys.argv[1], sys.argv[2]
path = endpoint.removeprefix("ipc://")
if mode == "junkfirst":  # the first connection: raw bytes that are not ZeroMQ's protocol
    junk = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    junk.connect(path)
    junk.sendall(b"GET / HTTP/1.0\r\n\r\n" + b"x" * 100)
sock = zmq.Context().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 1000)
sock.connect(endpoint)
DEEP_TYPE = b'{"type": ' + b"[" * 1000 + b"]" * 1000 + b"}"  # repr() of it once killed the referee
hello = {"type": "hello", "protocol": 99 if mode == "version" else 1, "name": f"raw-{mode}"}
if mode == "badhello":
    hello["colour"] = "blue"
if mode == "deephello":
    sock.send(DEEP_TYPE)
elif mode == "longhello":
    sock.send_json({**hello, "k" * 900_000: 1})
else:
    sock.send_json(hello)
while True:
    msg = json.loads(sock.recv())
    if msg["type"] == "error" and mode in ("version", "badhello", "deephello", "longhello"):
        sys.stderr.write(f"error: {msg['kind']}: {msg['message']}\n")
        # The protocol promises a shutdown after an error at hello: say what came next.
        sys.stderr.write(f"after the error: {json.loads(sock.recv())['type']}\n")
        break
    if msg["type"] in ("shutdown", "error"):
        break
    if msg["type"] == "welcome" and mode == "second":
        raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            raw.connect(path)
            sys.stderr.write("zoo_raw: second connection made\n")
        except OSError as exc:
            sys.stderr.write(f"zoo_raw: second connection refused ({os.strerror(exc.errno)})\n")
        late = zmq.Context.instance().socket(zmq.DEALER)
        late.setsockopt(zmq.LINGER, 0)
        late.connect(endpoint)
        late.send_json({"type": "action", "id": 1, "action": {}}, zmq.NOBLOCK)  # queued for a connection that is never made
    if msg["type"] != "request":
        continue
    answer = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
    if mode == "garbage":
        sock.send(b"\xff\xfe this is not json at all")
    elif mode == "badjson":
        sock.send(b'{"type": "action", "id": ')
    elif mode == "schema":
        sock.send_json({"type": "action", "id": "one", "action": []})
    elif mode == "huge":
        sock.send_json({**answer, "padding": "x" * (3 << 20)})
    elif mode == "deeptype":
        sock.send(DEEP_TYPE)
    elif mode == "longtype":
        sock.send_json({**answer, "type": "x" * 900_000})
    elif mode == "deep":
        nested = {}
        for _ in range(300):
            nested = {"a": nested}
        sock.send(json.dumps({**answer, "action": {"type": "play", "card": nested}}).encode())
    elif mode == "twice":
        sock.send_json(answer)
        sock.send_json(answer)
    elif mode == "close":
        sock.close()
        time.sleep(30)
        break
    else:
        sock.send_json(answer)
