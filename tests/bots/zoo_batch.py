"""Zoo: offers to play 8 games at once with batched frames (hello.batch) and misbehaves in one.

Run as ``zoo_batch.py ENDPOINT MODE GAME``.  It answers every frame of requests with one
``actions`` frame (the first legal action each).  In the frame holding the second request of the
game whose id ends with GAME, by MODE: ``illegal`` answers that game with an action that is never
legal, ``dup`` answers it twice in the frame, ``invent`` adds an answer to a request never made,
``garbage`` sends a frame that is not JSON instead of the answers, ``extrakey`` answers that game with
an element carrying a key the schema does not allow, ``noid`` with an element without its id.  ``slow:MS`` sleeps MS
milliseconds per request before answering each frame, ``spin:MS`` uses MS milliseconds of its own
CPU time per request (the referee charges CPU time: a sleeping bot is charged almost nothing).  Written without the SDK, so that it
misbehaves exactly when told.
"""
import json
import sys
import time

import zmq

endpoint, mode, target = sys.argv[1], sys.argv[2], sys.argv[3]
sock = zmq.Context().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 0)
sock.connect(endpoint)
sock.send_json({"type": "hello", "protocol": 1, "name": f"batch-{mode}", "concurrent": 8, "batch": True})
seen: dict[str, int] = {}
while True:
    msg = json.loads(sock.recv())
    if msg["type"] == "shutdown":
        break
    batch = msg["requests"] if msg["type"] == "requests" else [msg] if msg["type"] == "request" else []
    if not batch:
        continue
    answers = []
    misbehave = False
    for request in batch:
        game = request["game_id"]
        seen[game] = seen.get(game, 0) + 1
        answer = {"id": request["id"], "action": request["legal"][0]}
        if game.endswith(target) and seen[game] == 2:
            misbehave = True
            if mode == "illegal":
                answer["action"] = {"type": "play", "card": "Z"}
            if mode == "dup":
                answers.append(dict(answer))
            if mode == "extrakey":
                answer["why"] = "because"
            if mode == "noid":
                del answer["id"]
        answers.append(answer)
    if mode.startswith("slow:"):
        time.sleep(int(mode[5:]) * len(batch) / 1000)
    if mode.startswith("spin:"):
        end = time.process_time() + int(mode[5:]) * len(batch) / 1000
        while time.process_time() < end:
            pass
    if misbehave and mode == "invent":
        answers.append({"id": 10**9, "action": {"type": "stop"}})
    if misbehave and mode == "garbage":
        sock.send(b"\xff not json")
        continue
    sock.send_json({"type": "actions", "actions": answers})
