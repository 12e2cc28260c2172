"""Zoo: misbehaves at the protocol level, without the SDK; the mode is the file name's suffix.

Run as ``zoo_raw.py ENDPOINT MODE``: garbage (not JSON), badjson (truncated JSON), schema (JSON
but not a valid message), huge (a message over the size bound), twice (answers every request
twice), close (closes its socket and lingers), version (hello with protocol 99), badhello (a
hello with a key the schema does not allow), deep (an action nested 300 levels deep: readable,
but too deep to be encoded again), second (opens a second connection to its socket, as a bot
would to flood the referee with a message of many parts while it plays on the first), latesecond
(tries to, once it is playing: the socket's name is gone by then, so it plays on unharmed).
"""
import json
import sys
import time

import zmq

endpoint, mode = sys.argv[1], sys.argv[2]
sock = zmq.Context().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 1000)
sock.connect(endpoint)
hello = {"type": "hello", "protocol": 99 if mode == "version" else 1, "name": f"raw-{mode}"}
if mode == "badhello":
    hello["colour"] = "blue"
if mode == "second":  # a second connection before the hello
    extra = zmq.Context.instance().socket(zmq.DEALER)
    extra.connect(endpoint)
    time.sleep(0.3)
sock.send_json(hello)
while True:
    msg = json.loads(sock.recv())
    if msg["type"] == "error" and mode in ("version", "badhello"):
        sys.stderr.write(f"error: {msg['kind']}: {msg['message']}\n")
        # The protocol promises a shutdown after an error at hello: say what came next.
        sys.stderr.write(f"after the error: {json.loads(sock.recv())['type']}\n")
        break
    if msg["type"] in ("shutdown", "error"):
        break
    if msg["type"] != "request":
        continue
    answer = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
    if mode == "latesecond":
        late = zmq.Context.instance().socket(zmq.DEALER)
        late.setsockopt(zmq.LINGER, 0)
        late.connect(endpoint)
        late.send_json(answer, zmq.NOBLOCK)  # queued for a connection that can not be made
    if mode == "garbage":
        sock.send(b"\xff\xfe this is not json at all")
    elif mode == "badjson":
        sock.send(b'{"type": "action", "id": ')
    elif mode == "schema":
        sock.send_json({"type": "action", "id": "one", "action": []})
    elif mode == "huge":
        sock.send_json({**answer, "padding": "x" * (3 << 20)})
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
