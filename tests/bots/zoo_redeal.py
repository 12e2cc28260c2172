"""Zoo: a hostile bot that tries to re-deal the game from what it is told (issue 15, attack 1).

It knows the engine (it imports it, as any bot can), the tournament file (its seed: the root seeds
it tries are the defaults "0" and "check", 1, 2026 and any given on its command line) and every
message it gets.  At
``game_start`` it rebuilds candidate game seeds from the root seeds and the match id, by the
derivation arena used before issue 15 (public labels) and by today's keyed one with guessed keys
(it has not the database's key), and keeps each candidate that ``game_start.seed`` confirms (the
bot seed is a hash of the game seed).  At its first decision it deals each candidate with the
engine and counts those that give it its own hand; it then predicts every opponent's dealt hand
from the best candidate, and reports one line on stderr::

    zoo_redeal: {"game_id": ..., "seat": s, "candidates": n, "confirmed": k, "own_hand": m,
                 "predicted": {"1": [...], ...}}

Against the old derivation (a seed any bot could guess) it confirms a candidate in every game and
predicts every card; see tests/test_secrecy.py.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
import sys
from collections import Counter
from typing import Any

from arena.games import GameConfig, SeededChance, get_game

DEFAULT_ROOTS = ("0", "check", "1", "2026")
PAIRING = re.compile(r"^(?:.*/)?r(\d+)-t(\d+)-s(\d+)$")


def labels(root: str, match_id: str) -> list[str]:
    """Match seeds as public labels (arena before issue 15): arena play and check's ``{root}:{m}``,
    a tournament's ``{root}:{root}:{format}:r{g}-t{t}`` (a duplicate deal) and its ``:rot{r}``."""
    out = []
    plain = re.fullmatch(r"(?:m|check)(\d+)(?:-\d+)?", match_id)
    if plain:
        out.append(f"{root}:{plain.group(1)}")
    pairing = PAIRING.match(match_id)
    if pairing:
        g, t, r = pairing.groups()
        for fmt in ("round_robin", "swiss"):
            deal = f"{root}:{fmt}:r{g}-t{t}"
            out += [f"{root}:{deal}", f"{root}:{deal}:rot{r}"]
    return out


def guessed_keys(root: str) -> list[bytes]:
    """Keys a bot might try for today's keyed derivation: it never sees the database's."""
    return [bytes(32), root.encode(), hashlib.sha256(root.encode()).digest(), b"arena", b""]


def match_seeds(roots: list[str], match_id: str) -> list[str]:
    seeds = []
    for root in roots:
        for label in labels(root, match_id):
            seeds.append(label)
            seeds += [hmac.new(key, f"arena-deal:{label}".encode(), hashlib.sha256).hexdigest()
                      for key in guessed_keys(root)]
    return list(dict.fromkeys(seeds))


def bot_seed(game_seed: str, seat: int) -> str:
    """How the referee makes ``game_start.seed`` from the game's seed (arena.referee.seat)."""
    return hashlib.sha256(f"bot:{game_seed}:{seat}".encode()).hexdigest()[:16]


def candidates(roots: list[str], msg: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every candidate game seed for this game_start, and those its ``seed`` confirms."""
    seeds = [f"{s}:{msg['index']}" for s in match_seeds(roots, msg["match_id"])]
    return seeds, [s for s in seeds if bot_seed(s, msg["seat"]) == msg["seed"]]


def dealt_hands(game: str, config: dict[str, Any], game_seed: str) -> list[list[str]]:
    state = get_game(game).new_game(GameConfig.from_json(config), SeededChance(game_seed))
    return [list(state.observation(s)["hand"]) for s in range(state.config.players)]


def attack(game: str, roots: list[str], msg: dict[str, Any], hand: list[str]) -> dict[str, Any]:
    """The whole attack on one game: ``msg`` is its game_start, ``hand`` the bot's hand as dealt."""
    seeds, confirmed = candidates(roots, msg)
    own = []
    for s in seeds:
        hands = dealt_hands(game, msg["config"], s)
        if Counter(hands[msg["seat"]]) == Counter(hand):
            own.append((s, hands))
    best = confirmed[0] if confirmed else own[0][0] if own else seeds[0]
    hands = dealt_hands(game, msg["config"], best)
    predicted = {str(s): h for s, h in enumerate(hands) if s != msg["seat"]}
    return {"game_id": msg["game_id"], "seat": msg["seat"], "candidates": len(seeds), "confirmed": len(confirmed),
            "own_hand": len(own), "predicted": predicted}


class Redeal:
    def __init__(self) -> None:
        self.roots = list(dict.fromkeys([*sys.argv[2:], *DEFAULT_ROOTS]))
        self.starts: dict[str, dict[str, Any]] = {}
        self.rng = random.Random()

    def on_game_start(self, msg: dict[str, Any]) -> None:
        self.starts[msg["game_id"]] = msg
        self.rng.seed(msg["seed"])

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
        start = self.starts.pop(ctx.game_id, None)
        if start is not None:
            report = attack(observation["game"], self.roots, start, list(observation["hand"]))
            print("zoo_redeal: " + json.dumps(report), file=sys.stderr, flush=True)
        return self.rng.choice(legal)


if __name__ == "__main__":
    from protocol.sdk import run

    sys.exit(run(Redeal, name="redeal"))
