"""Spy: plays at random and times the referee, to learn what the other seats hide.

It notes, after each of its answers, how long the referee took to send it its next message: in
Powder Keg that gap told whether another seat was polled for a Veto (so held a Queen), in Reactor
whether another seat's decision was forced (applied without a round trip).  One line per answer on
stderr, for benchmarks/timing_channel.py to read against the game records::

    spy GAME_ID K GAP_NS NEXT OTHERS

K is the answer's place among its rules decisions in that game (a cover poll, a Veto poll whose
only action is ``pass``, is no decision of the rules and is not counted), NEXT the type and
decision of the next message (``request:KD2``, ``game_over``, ...), OTHERS how many of the events
that message brings are another seat's (public: what the others did in between).  Written without the SDK, so
that nothing but a socket call lies between the clock and the wire; it offers no concurrency, so
the referee plays one game at a time and each gap is one game's.
"""
import json
import random
import sys
import time

import zmq

endpoint = sys.argv[1]
sock = zmq.Context().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 0)
sock.connect(endpoint)
sock.send_json({"type": "hello", "protocol": 1, "name": "spy"})
rngs: dict[str, random.Random] = {}
count: dict[str, int] = {}
pending: tuple[str, int, int] | None = None  # (game, K, when the answer left) of the last answer
seat = 0
out = []
while True:
    frame = sock.recv()
    now = time.perf_counter_ns()
    msg = json.loads(frame)
    kind = msg["type"]
    if pending is not None:
        game, k, sent = pending
        nxt = f"request:{msg['decision']}" if kind == "request" else kind
        others = sum(1 for e in msg.get("events", ()) if e.get("seat", seat) != seat)
        out.append(f"spy {game} {k} {now - sent} {nxt} {others}\n")
        pending = None
    if kind == "shutdown":
        break
    if kind == "game_start":
        seat = msg["seat"]
        rngs[msg["game_id"]] = random.Random(msg["seed"])
        count[msg["game_id"]] = 0
    elif kind == "game_over":
        sys.stderr.write("".join(out))  # between games: the writes cost no gap
        sys.stderr.flush()
        out = []
    elif kind == "request":
        game = msg["game_id"]
        legal = msg["legal"]
        cover = msg["decision"] == "KD2" and legal == [{"type": "pass"}]
        chosen = legal[rngs[game].randrange(len(legal))]
        k = -1 if cover else count[game]
        if not cover:
            count[game] += 1
        sock.send_json({"type": "action", "id": msg["id"], "action": chosen})
        pending = (game, k, time.perf_counter_ns())
sys.stderr.write("".join(out))
