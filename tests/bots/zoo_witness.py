"""Zoo: plays at random and writes, at each game's end, a digest of every request it was sent
(decision, observation, events, legal actions), so a test can check that what a record replays
as this seat's view is what the bot was shown.  Without the SDK: it sees the raw requests.

Run as ``zoo_witness.py ENDPOINT``; at each game_over it writes to stderr
``seen GAME_ID COUNT SHA256``.
"""
import hashlib
import json
import random
import sys

import zmq

sock = zmq.Context().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 1000)
sock.connect(sys.argv[1])
sock.send_json({"type": "hello", "protocol": 1, "name": "witness"})
digests: dict[str, list[str]] = {}
rng = random.Random(0)
while True:
    msg = json.loads(sock.recv())
    kind = msg["type"]
    if kind == "shutdown":
        break
    if kind == "game_start":
        rng.seed(msg["seed"])
    elif kind == "request":
        seen = [msg["decision"], msg["observation"], msg["events"], msg["legal"]]
        digests.setdefault(msg["game_id"], []).append(
            hashlib.sha256(json.dumps(seen, sort_keys=True, separators=(",", ":")).encode()).hexdigest())
        sock.send_json({"type": "action", "id": msg["id"], "action": rng.choice(msg["legal"])})
    elif kind == "game_over":
        mine = digests.pop(msg["game_id"], [])
        total = hashlib.sha256("".join(mine).encode()).hexdigest()
        sys.stderr.write(f"seen {msg['game_id']} {len(mine)} {total}\n")
        sys.stderr.flush()
