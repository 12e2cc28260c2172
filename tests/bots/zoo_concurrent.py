"""Zoo: offers to play 8 games at once (hello.concurrent) and misbehaves in one of them.

Run as ``zoo_concurrent.py ENDPOINT MODE GAME``.  At its second request in the game whose id ends
with GAME (e.g. ``m2-g0``), by MODE: ``crash`` exits with status 3, ``illegal`` answers an action
that is never legal, ``hang`` stops answering, ``twice`` answers twice, ``actions`` answers in an
``actions`` frame (which it did not offer in its hello).  ``slow:MS`` answers every
request after MS milliseconds of sleep, ``spin:MS`` after MS milliseconds of its own CPU time (the
referee charges CPU time: a sleeping bot is charged almost nothing).  Otherwise it plays the first legal action.  Written without the
SDK, so that it misbehaves exactly when told.
"""
import json
import sys
import time

import zmq

endpoint, mode, target = sys.argv[1], sys.argv[2], sys.argv[3]
sock = zmq.Context().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 0)
sock.connect(endpoint)
sock.send_json({"type": "hello", "protocol": 1, "name": f"concurrent-{mode}", "concurrent": 8})
requests: dict[str, int] = {}


def spin(seconds: float) -> None:
    """Use ``seconds`` of this process's CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass



while True:
    msg = json.loads(sock.recv())
    if msg["type"] == "shutdown":
        break
    if msg["type"] != "request":
        continue
    game = msg["game_id"]
    requests[game] = requests.get(game, 0) + 1
    answer = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
    if mode.startswith("slow:"):
        time.sleep(int(mode[5:]) / 1000)
    if mode.startswith("spin:"):
        spin(int(mode[5:]) / 1000)
    if game.endswith(target) and requests[game] == 2:
        if mode == "crash":
            # Let the answers already sent leave first (LINGER 0 would drop them at exit on a
            # busy machine): the crash belongs to this game, not to one answered just before.
            sock.close(linger=5000)
            sys.exit(3)
        if mode == "illegal":
            answer["action"] = {"type": "play", "card": "Z"}
        if mode == "hang":
            time.sleep(3600)
        if mode == "twice":
            sock.send_json(answer)
        if mode == "actions":
            answer = {"type": "actions", "actions": [{"id": answer["id"], "action": answer["action"]}]}
    sock.send_json(answer)
