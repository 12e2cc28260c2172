"""Zoo: a bot that remembers every game its process played, to tell a repeated deal (issue 15,
attack 7: with ``duplicate = true`` a warm process that played one seat rotation of a deal knew
opponents' cards in the next).

Each process draws a token of its own.  It keeps in memory, and in a file in its working folder
and in /tmp, the games it played; at each ``game_start`` it reports on stderr::

    zoo_remember: {"process": token, "game_id": ..., "seat": s, "earlier": [game ids of this
                   process], "inherited": [tokens of earlier processes whose files it found]}

so a test can tell which games each process saw (the records say which deal each one was) and
whether anything of an earlier process survived into its folders.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from typing import Any

TOKEN = os.urandom(8).hex()
FILES = (Path("memory.json"), Path("/tmp/memory.json"))
SEEN: list[str] = []  # game ids this process played, in order


def inherited() -> list[str]:
    tokens = []
    for path in FILES:
        try:
            tokens += [t for t in json.loads(path.read_text())["tokens"] if t != TOKEN]
        except (OSError, ValueError, KeyError):
            pass
    return sorted(set(tokens))


FOUND = inherited()


class Remember:
    def __init__(self) -> None:
        self.rng = random.Random()

    def on_game_start(self, msg: dict[str, Any]) -> None:
        self.rng.seed(msg["seed"])
        report = {"process": TOKEN, "game_id": msg["game_id"], "seat": msg["seat"], "earlier": list(SEEN),
                  "inherited": FOUND}
        print("zoo_remember: " + json.dumps(report), file=sys.stderr, flush=True)
        SEEN.append(msg["game_id"])
        for path in FILES:
            try:
                path.write_text(json.dumps({"tokens": [*FOUND, TOKEN], "games": SEEN}))
            except OSError:
                pass

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
        return self.rng.choice(legal)


if __name__ == "__main__":
    from protocol.sdk import run

    sys.exit(run(Remember, name="remember"))
