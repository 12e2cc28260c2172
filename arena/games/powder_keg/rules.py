"""Powder Keg: a game of nerve for 2-5 players (an Exploding Kittens adaptation).

Spec: ``seeds/powder-keg.md``, the game as a bot sees it (what it is shown, what it may answer; its JSON
Schema is ``schema.json`` here); ``seeds/powder-keg-engine.md``, how this module implements it.

Seats: ``0..n-1`` clockwise; turns pass to seat+1, skipping eliminated seats (R1, section 0).
Cards are handled by type code, in the fixed sort order ``K Bk Q J 10 9 8 7 6 5 4 3 2`` (King = keg,
Bk = bucket, Q = Veto, J = Double, 10 = Skip, 9 = Favour, 8 = Shuffle, 7 = Peek, 6-2 = plain).
Deal (R3): the 44 cards that are neither King nor bucket are shuffled (KE1) and dealt one at a time clockwise
from the starter, 7 each (4 with Short hands); every hand then gets one bucket.  The undealt cards, ``n-1``
Kings and ``min(2, 6-n)`` buckets are shuffled into the draw pile (KE2); the other Kings and buckets leave
the game (public).
Observation (B.5): public table state (active seats, current player, T, D, pile size and Kings in it, the whole
discard pile, hand sizes, cards out of the game, the open veto chain, pending favour, reinsertion range,
takeable types) plus one's own hand.  Never the pile order, other hands, or who was polled for a Veto (a
referee that asks cover polls, ``cover_hidden_skips``, polls every active seat: its timing tells it no more).
Scoring (R19, R20): the last active player wins the game and scores 1 point; places follow the elimination
order (eliminated later = better); forfeited seats rank last.  A match to ``points`` is arena.games.match.
"""

from __future__ import annotations

import copy
from itertools import combinations
from typing import Any

from arena.games.base import (
    Action,
    Decision,
    Event,
    Game,
    GameConfig,
    GameError,
    GameResult,
    IllegalAction,
    Observation,
    State,
    check_absent,
    rank_places,
)
from arena.games.chance import Chance, SeededChance

# --- card types -------------------------------------------------------------------------------------------

CODES: tuple[str, ...] = ("K", "Bk", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}
K, BK, Q, J, SKIP, FAVOUR, SHUFFLE, PEEK = range(8)
HOLDABLE = tuple(range(1, 13))  # every type but the King (KQ27)
SINGLE_TYPES = (J, SKIP, SHUFFLE, PEEK)  # R7(a); the Favour is a single with a target
DEAL_CODES: tuple[str, ...] = tuple(code for code in CODES[2:] for _ in range(4))  # the 44 cards of R3(a,b)

FIVE_DIFFERENT = "five-different"
SIMPLER_DOUBLE = "simpler-double"
SHORT_HANDS = "short-hands"
VARIANTS = (FIVE_DIFFERENT, SIMPLER_DOUBLE, SHORT_HANDS)

MAX_SEATS = 5
MAX_PILE = 64  # bound on insertion indexes; the largest pile ever is 39 cards (2 players, Short hands)
DEFAULT_MAX_DECISIONS = 5000

# Decision kinds (B.4); 0 means the game is over.
KD1, KD2, KD3, KD4, KD5 = 1, 2, 3, 4, 5
KIND_NAMES = ("", "KD1", "KD2", "KD3", "KD4", "KD5")
_DECISION = {(seat, kind): Decision(seat, KIND_NAMES[kind]) for seat in range(MAX_SEATS) for kind in range(1, 6)}

# --- action tables: every legal action is one of these shared constant dicts -------------------------------

OP_DRAW, OP_SINGLE, OP_FAVOUR, OP_PAIR, OP_TRIPLE, OP_FIVE, OP_VETO, OP_PASS, OP_GIVE, OP_INSERT, OP_TAKE = range(11)

DRAW: Action = {"type": "draw"}
VETO: Action = {"type": "veto"}
PASS: Action = {"type": "pass"}
SINGLE: dict[int, Action] = {t: {"type": "play", "card": CODES[t]} for t in SINGLE_TYPES}
FAVOUR_ACTION: dict[int, Action] = {s: {"type": "favour", "target": s} for s in range(MAX_SEATS)}
PAIR: dict[tuple[int, int], Action] = {
    (t, s): {"type": "pair", "card": CODES[t], "target": s} for t in HOLDABLE for s in range(MAX_SEATS)
}
TRIPLE: dict[tuple[int, int, int], Action] = {
    (t, s, n): {"type": "triple", "card": CODES[t], "target": s, "name": CODES[n]}
    for t in HOLDABLE
    for s in range(MAX_SEATS)
    for n in HOLDABLE
}
FIVE_COMBOS: tuple[tuple[int, ...], ...] = tuple(combinations(HOLDABLE, 5))  # fixed order, C(12,5) = 792
FIVE: dict[tuple[int, ...], Action] = {c: {"type": "five", "cards": [CODES[t] for t in c]} for c in FIVE_COMBOS}
GIVE: dict[int, Action] = {t: {"type": "give", "card": CODES[t]} for t in HOLDABLE}
INSERT: dict[int, Action] = {p: {"type": "insert", "index": p} for p in range(MAX_PILE + 1)}
TAKE: dict[int, Action] = {t: {"type": "take", "card": CODES[t]} for t in HOLDABLE}

# key of an action's fields -> (canonical dict, opcode, a, b, c); apply() decodes actions through this table.
_TABLE: dict[tuple, tuple] = {("draw",): (DRAW, OP_DRAW, 0, 0, 0)}
_TABLE[("veto",)] = (VETO, OP_VETO, 0, 0, 0)
_TABLE[("pass",)] = (PASS, OP_PASS, 0, 0, 0)
for _t, _a in SINGLE.items():
    _TABLE[("play", CODES[_t])] = (_a, OP_SINGLE, _t, 0, 0)
for _s, _a in FAVOUR_ACTION.items():
    _TABLE[("favour", _s)] = (_a, OP_FAVOUR, FAVOUR, _s, 0)
for (_t, _s), _a in PAIR.items():
    _TABLE[("pair", CODES[_t], _s)] = (_a, OP_PAIR, _t, _s, 0)
for (_t, _s, _n), _a in TRIPLE.items():
    _TABLE[("triple", CODES[_t], _s, CODES[_n])] = (_a, OP_TRIPLE, _t, _s, _n)
for _c, _a in FIVE.items():
    _TABLE[("five", tuple(CODES[t] for t in _c))] = (_a, OP_FIVE, _c, 0, 0)
for _t, _a in GIVE.items():
    _TABLE[("give", CODES[_t])] = (_a, OP_GIVE, _t, 0, 0)
for _p, _a in INSERT.items():
    _TABLE[("insert", _p)] = (_a, OP_INSERT, _p, 0, 0)
for _t, _a in TAKE.items():
    _TABLE[("take", CODES[_t])] = (_a, OP_TAKE, _t, 0, 0)

# Ready-made slices of the KD1 list, keyed by the bitmask of possible targets (other active seats).
_MASKS = range(1 << MAX_SEATS)
_FAVOUR_LIST = [[FAVOUR_ACTION[s] for s in range(MAX_SEATS) if m >> s & 1] for m in _MASKS]
_PAIR_LIST = [None] + [[[PAIR[t, s] for s in range(MAX_SEATS) if m >> s & 1] for m in _MASKS] for t in HOLDABLE]
_TRIPLE_LIST = [None] + [
    [[TRIPLE[t, s, n] for s in range(MAX_SEATS) if m >> s & 1 for n in HOLDABLE] for m in _MASKS] for t in HOLDABLE
]
_FIVE_CACHE: dict[int, list[Action]] = {}  # bitmask of held types -> their five-different plays
_GIVE_CACHE: dict[int, list[Action]] = {}  # bitmask of held types -> GIVE actions
_TAKE_CACHE: dict[int, list[Action]] = {}  # bitmask of types in the discard pile -> TAKE actions
_INSERT_LIST = [[INSERT[p] for p in range(size + 1)] for size in range(MAX_PILE + 1)]
_VETO_LIST = [VETO, PASS]
_PASS_LIST = [PASS]  # a cover poll of a seat without a Queen (cover_hidden_skips)
_COMBO_MASK = [(c, sum(1 << t for t in c)) for c in FIVE_COMBOS]


def _five_list(mask: int) -> list[Action]:
    found = _FIVE_CACHE.get(mask)
    if found is None:
        found = _FIVE_CACHE[mask] = [FIVE[c] for c, cm in _COMBO_MASK if cm & mask == cm]
    return found


def _type_list(cache: dict[int, list[Action]], table: dict[int, Action], mask: int) -> list[Action]:
    found = cache.get(mask)
    if found is None:
        found = cache[mask] = [table[t] for t in HOLDABLE if mask >> t & 1]
    return found


def _decode(action: Any) -> tuple:
    """The table entry whose canonical dict equals ``action``; IllegalAction if there is none."""
    try:
        kind = action["type"]
        if kind == "play":
            key: tuple = ("play", action["card"])
        elif kind == "pair":
            key = ("pair", action["card"], action["target"])
        elif kind == "triple":
            key = ("triple", action["card"], action["target"], action["name"])
        elif kind == "favour":
            key = ("favour", action["target"])
        elif kind == "five":
            key = ("five", tuple(action["cards"]))
        elif kind in ("give", "take"):
            key = (kind, action["card"])
        elif kind == "insert":
            key = ("insert", action["index"])
        else:
            key = (kind,)
        entry = _TABLE[key]
    except (KeyError, TypeError, IndexError):
        raise IllegalAction(f"not a Powder Keg action: {action!r}") from None
    canon = entry[0]
    if canon is not action and canon != action:
        raise IllegalAction(f"not a Powder Keg action: {action!r}")
    return entry


# _REPEAT[t][c]: c copies of type t's code, for c up to the 6 buckets of the deck (a position set up
# by hand may hold more: those are built on the spot).  Read-only: they are copied into hands.
_REPEAT: list[list[list[str]]] = [[[code] * c for c in range(7)] for code in CODES]
# The seats of each bitmask of seats, increasing (the observation's "active", from ``active_mask``).
_SEATS_OF: list[tuple[int, ...]] = [tuple(s for s in range(MAX_SEATS) if m >> s & 1) for m in _MASKS]


def _hand_codes(counts: list[int]) -> list[str]:
    """A hand's cards as codes in the fixed sort order (a new list)."""
    out: list[str] = []
    for t in HOLDABLE:
        c = counts[t]
        if c > 0:
            out += _REPEAT[t][c] if c <= 6 else [CODES[t]] * c
    return out


class KegState(State):
    """One game of Powder Keg; ``apply`` runs every automatic step up to the next decision."""

    game = "powder-keg"
    __slots__ = (
        "config", "chance", "log", "decisions", "n", "five", "simpler", "max_decisions", "starter", "removed",
        "active", "active_mask", "n_active", "hands", "sizes", "pile", "discard", "dcount", "cur", "T", "D",
        "kind", "seat", "chain", "vetoes", "poll_last", "poll_pos", "favour_target", "eliminated", "forfeits",
        "n_decisions", "capped", "reason", "_legal", "total", "base_decisions", "cover", "covered",
    )

    # --- construction -------------------------------------------------------------------------------------

    def __init__(self, config: GameConfig, chance: Chance) -> None:
        """Bare state; use :meth:`new` or :meth:`from_position`."""
        n = config.players
        self.config = config
        self.chance = chance
        self.log: list[Event] = []
        self.decisions: list[tuple[int, Action]] = []
        self.n = n
        self.five = FIVE_DIFFERENT in config.variants
        self.simpler = SIMPLER_DOUBLE in config.variants
        self.max_decisions = DEFAULT_MAX_DECISIONS if config.max_decisions is None else config.max_decisions
        self.starter = 0
        self.removed = {"K": 0, "Bk": 0}
        self.active = [True] * n
        self.active_mask = (1 << n) - 1
        self.n_active = n
        self.hands = [[0] * 13 for _ in range(n)]
        self.sizes = [0] * n
        self.pile: list[int] = []  # top of the pile is the END of the list
        self.discard: list[str] = []  # bottom first
        self.dcount = [0] * 13
        self.cur = 0
        self.T = 1
        self.D = False
        self.kind = 0
        self.seat = 0
        self.chain: Event | None = None  # the open play's public event while its veto window is open
        self.vetoes: list[int] = []
        self.poll_last = 0
        self.poll_pos = 1
        self.favour_target = -1
        self.eliminated: list[int] = []  # by a King, in order
        self.forfeits: list[int] = []
        self.n_decisions = 0
        self.capped = False
        self.reason = "normal"
        self._legal: list[Action] | None = None
        self.total = 54  # cards in play or out of the game (a position may use fewer)
        self.base_decisions = 0  # decisions made before a position set up by from_position
        self.cover = False  # also stop at the Veto poll of a seat without a Queen (cover_hidden_skips)
        self.covered = False  # the pending KD2 is such a cover

    @classmethod
    def new(cls, config: GameConfig, chance: Chance) -> "KegState":
        """Set up a game (R3): starter (KE5), deal (KE1), draw pile (KE2), then the starter's first turn."""
        POWDER_KEG.check_config(config)
        self = cls(config, chance)
        n = self.n
        if config.starter is None:
            starter = chance.pick("starter", [str(s) for s in range(n)])
        else:
            starter = config.starter
        self.starter = starter
        per_hand = 4 if SHORT_HANDS in config.variants else 7
        order = chance.shuffle("deal", list(DEAL_CODES))
        hands = self.hands
        for i in range(n * per_hand):
            hands[(starter + i) % n][INDEX[order[i]]] += 1
        kings, buckets = n - 1, min(2, 6 - n)
        self.removed = {"K": 4 - kings, "Bk": 6 - n - buckets}
        pile = chance.shuffle("pile", order[n * per_hand:] + ["K"] * kings + ["Bk"] * buckets)
        self.pile = [INDEX[c] for c in reversed(pile)]
        log = self.log
        log.append({
            "type": "setup", "players": n, "variants": list(config.variants), "starter": starter,
            "hand": per_hand + 1, "pile": len(pile), "kings": kings, "buckets": buckets,
            "removed": dict(self.removed),
        })
        for s in range(n):
            hands[s][BK] += 1
            self.sizes[s] = per_hand + 1
            log.append({"type": "deal", "seat": s, "count": per_hand + 1,
                        "private": {"to": [s], "hand": _hand_codes(hands[s])}})
        self._begin_turn(starter, 1, False)
        return self

    @classmethod
    def from_position(
        cls,
        config: GameConfig,
        hands: list[list[str]],
        pile: list[str],
        *,
        chance: Chance | None = None,
        discard: list[str] = (),  # type: ignore[assignment]
        current: int = 0,
        T: int = 1,
        D: bool = False,
        active: list[int] | None = None,
        removed: dict[str, int] | None = None,
        decisions_made: int = 0,
    ) -> "KegState":
        """A game set up directly in a given position (tests, analysis).  ``pile`` is listed top first;
        ``discard`` bottom first; ``active`` lists the active seats (default: all), the others count as
        eliminated in seat order.  The current player starts the play phase of a turn with ``T``, ``D``."""
        POWDER_KEG.check_config(config)
        if chance is None:
            chance = SeededChance(0)
        self = cls(config, chance)
        n = self.n
        live = list(range(n)) if active is None else sorted(active)
        for s in range(n):
            if s not in live:
                self.active[s] = False
                self.active_mask &= ~(1 << s)
                self.eliminated.append(s)
                if hands[s]:
                    raise GameError(f"eliminated seat {s} cannot hold cards")
        self.n_active = len(live)
        if current not in live or T < 1:
            raise GameError("the current player must be active and owe at least one turn")
        for s in range(n):
            for code in hands[s]:
                t = INDEX[code]
                if t == K:
                    raise GameError("a King is never held")
                self.hands[s][t] += 1
            self.sizes[s] = len(hands[s])
        self.pile = [INDEX[c] for c in reversed(pile)]
        for code in discard:
            self.discard.append(code)
            self.dcount[INDEX[code]] += 1
        self.starter = current
        if removed is not None:
            self.removed = dict(removed)
        self.n_decisions = self.base_decisions = decisions_made
        self.total = sum(self.sizes) + len(pile) + len(self.discard) + self.removed["K"] + self.removed["Bk"]
        self.log.append({
            "type": "position", "players": n, "active": live, "pile": len(pile), "discard": list(discard),
            "hand_sizes": list(self.sizes),
        })
        for s in live:
            self.log.append({"type": "deal", "seat": s, "count": self.sizes[s],
                             "private": {"to": [s], "hand": _hand_codes(self.hands[s])}})
        if self.n_active < 2:
            raise GameError("a position needs two active players")
        self._begin_turn(current, T, D)
        return self

    def check_invariants(self) -> None:
        """Assert what must hold between any two steps: card conservation, R21, bookkeeping, the decision."""
        n = self.n
        kind = self.kind
        waiting = 1 if kind == KD4 else 0
        assert self.sizes == [sum(h) for h in self.hands], "hand sizes out of step"
        assert all(h[K] == 0 for h in self.hands), "a King is never held"
        assert all(x >= 0 for h in self.hands for x in h)
        assert self.dcount == [self.discard.count(c) for c in CODES], "discard counts out of step"
        held = sum(self.sizes) + len(self.pile) + len(self.discard) + waiting
        assert held + self.removed["K"] + self.removed["Bk"] == self.total, "cards lost or made"
        if self.total == 54:
            per_type = [sum(h[t] for h in self.hands) + self.pile.count(t) + self.dcount[t] for t in range(13)]
            per_type[K] += waiting + self.removed["K"]
            per_type[BK] += self.removed["Bk"]
            assert per_type == [4, 6] + [4] * 11, "card counts differ from the deck"
        live = [s for s in range(n) if self.active[s]]
        assert self.n_active == len(live) and self.active_mask == sum(1 << s for s in live)
        assert set(self.eliminated) | set(self.forfeits) == set(range(n)) - set(live)
        assert not set(self.eliminated) & set(self.forfeits)
        assert not any(self.sizes[s] for s in range(n) if not self.active[s])
        assert self.n_decisions - self.base_decisions == sum(1 for _, a in self.decisions if a["type"] != "forfeit")
        if not kind:
            assert self.n_active == 1 or self.capped or sorted(self.forfeits) == list(range(n))
            return
        assert self.n_active >= 2 and self.active[self.cur] and self.active[self.seat] and self.T >= 1
        assert self.pile.count(K) == self.n_active - 1 - waiting, "R21"
        assert (self.chain is not None) == (kind == KD2)
        if kind == KD2:
            assert (self.hands[self.seat][Q] > 0) != self.covered and 1 <= self.poll_pos <= n
            assert self.cover or not self.covered
        elif kind == KD3:
            assert self.seat == self.favour_target and self.sizes[self.seat] > 0
        else:
            assert self.seat == self.cur
        assert self.legal_actions(), "a pending decision without legal actions"

    # --- the State interface --------------------------------------------------------------------------------

    def to_move(self) -> Decision | None:
        """The pending decision (KD1..KD5), or None once the game is over."""
        kind = self.kind
        return _DECISION[self.seat, kind] if kind else None

    def legal_actions(self) -> list[Action]:
        """The pending decision's actions in a fixed order (shared constants; do not mutate)."""
        legal = self._legal
        if legal is not None:
            return legal
        kind = self.kind
        if kind == KD1:
            legal = self._kd1_legal()
        elif kind == KD2:
            legal = _PASS_LIST if self.covered else _VETO_LIST
        elif kind == KD3:
            legal = _type_list(_GIVE_CACHE, GIVE, self._mask(self.hands[self.seat]))
        elif kind == KD4:
            legal = _INSERT_LIST[len(self.pile)]
        elif kind == KD5:
            legal = _type_list(_TAKE_CACHE, TAKE, self._mask(self.dcount) & ~1)
        else:
            legal = []
        self._legal = legal
        return legal

    @staticmethod
    def _mask(counts: list[int]) -> int:
        mask = 0
        for t in HOLDABLE:
            if counts[t]:
                mask |= 1 << t
        return mask

    def _kd1_legal(self) -> list[Action]:
        cur = self.cur
        h = self.hands[cur]
        targets = self.active_mask & ~(1 << cur)
        legal = [DRAW]
        for t in SINGLE_TYPES:
            if h[t]:
                legal.append(SINGLE[t])
        if h[FAVOUR]:
            legal.extend(_FAVOUR_LIST[targets])
        triples = []
        mask = 0
        for t in HOLDABLE:
            c = h[t]
            if c:
                mask |= 1 << t
                if c >= 2:
                    legal.extend(_PAIR_LIST[t][targets])
                    if c >= 3:
                        triples.append(t)
        for t in triples:
            legal.extend(_TRIPLE_LIST[t][targets])
        if self.five and mask.bit_count() >= 5:
            legal.extend(_five_list(mask))
        return legal

    def apply(self, action: Action) -> None:
        """Apply the pending decision's action and run the automatic steps up to the next decision."""
        kind = self.kind
        if not kind:
            raise IllegalAction("the game is over")
        canon, op, a, b, c = _decode(action)
        seat = self.seat
        if kind == KD1:
            h = self.hands[seat]
            if op == OP_DRAW:
                self.decisions.append((seat, canon))
                self._legal = None
                self._draw()
            elif op <= OP_FIVE:
                if op == OP_FIVE:
                    ok = self.five and h[a[0]] and h[a[1]] and h[a[2]] and h[a[3]] and h[a[4]]
                else:
                    ok = h[a] >= (3 if op == OP_TRIPLE else 2 if op == OP_PAIR else 1)
                    if ok and op != OP_SINGLE:
                        ok = b != seat and self.active_mask >> b & 1
                if not ok:
                    raise IllegalAction(f"{action!r} is not legal now")
                self.decisions.append((seat, canon))
                self._legal = None
                self._play(op, a, b, c, canon)
            else:
                raise IllegalAction(f"{action!r} is not legal now")
        elif kind == KD2:
            if self.covered:
                # A cover, no decision of the rules: nothing is recorded or counted (see cover_hidden_skips).
                if op != OP_PASS:
                    raise IllegalAction(f"{action!r} is not legal now")
                self.covered = False
                self._legal = None
                self.poll_pos += 1
                self._poll()
                return
            if op == OP_PASS:
                self.decisions.append((seat, canon))
                self._legal = None
                self.poll_pos += 1
                self._poll()
            elif op == OP_VETO:
                self.decisions.append((seat, canon))
                self._legal = None
                self._veto(seat)
            else:
                raise IllegalAction(f"{action!r} is not legal now")
        elif kind == KD3:
            if op != OP_GIVE or not self.hands[seat][a]:
                raise IllegalAction(f"{action!r} is not legal now")
            self.decisions.append((seat, canon))
            self._legal = None
            self._give(seat, a)
        elif kind == KD4:
            if op != OP_INSERT or not 0 <= a <= len(self.pile):
                raise IllegalAction(f"{action!r} is not legal now")
            self.decisions.append((seat, canon))
            self._legal = None
            self._insert(seat, a)
        else:
            if op != OP_TAKE or not self.dcount[a]:
                raise IllegalAction(f"{action!r} is not legal now")
            self.decisions.append((seat, canon))
            self._legal = None
            self._take(seat, a)
        self.n_decisions += 1
        if self.kind and self.n_decisions >= self.max_decisions:
            self.capped = True
            self._finish("cap")

    def forfeit(self, seat: int, reason: str = "forfeit") -> None:
        """Harness rule: eliminate the seat that must decide now (seeds/powder-keg.md section 8; the
        engine's side: seeds/powder-keg-engine.md)."""
        kind = self.kind
        if not kind:
            raise GameError("the game is over")
        if self.covered:
            raise GameError("a cover poll is no decision of the rules: its seat can not forfeit at it")
        if seat != self.seat:
            raise GameError(f"seat {seat} is not the seat to decide now")
        self._legal = None
        self.decisions.append((seat, {"type": "forfeit", "reason": reason}))
        self.forfeits.append(seat)
        self.log.append({"type": "forfeit", "seat": seat, "reason": reason})
        # R21 must keep holding: one King leaves the draw pile with the player.
        if kind != KD4:
            self._take_king()
        # (at KD4 the doused King waiting for reinsertion is the one that goes)
        self._remove_player(seat, "forfeit")
        if self.n_active == 1:
            self._finish("forfeit")
        elif kind == KD2:
            if seat == self.cur:
                # The author of the open play is gone: nothing of the chain happens.
                self.log.append({"type": "window", "seat": self.cur, "outcome": "abandoned",
                                 "vetoes": len(self.vetoes)})
                self.chain = None
                self._begin_turn(self._next_active(seat), 1, False)
            else:
                self.poll_pos += 1  # counts as a pass
                self._poll()
        elif kind == KD3:
            self.log.append({"type": "give", "from": seat, "to": self.cur, "moved": False})
            self.favour_target = -1
            self.kind, self.seat = KD1, self.cur
        else:
            self._begin_turn(self._next_active(seat), 1, False)

    def forfeit_absent(self, reasons: dict[int, str]) -> None:
        """Harness rule: absent seats leave before the first decision, each as a forfeit at KD1
        (a King leaves the pile with each, but the last of an all-absent table, for whom none
        is left); if the starter is among them, the next active player clockwise starts."""
        check_absent(self, reasons, [s for s in range(self.n) if self.active[s]])
        self._legal = None
        for seat in sorted(reasons):
            self.decisions.append((seat, {"type": "forfeit", "reason": reasons[seat], "absent": True}))
            self.forfeits.append(seat)
            self.log.append({"type": "forfeit", "seat": seat, "reason": reasons[seat]})
            king = self.n_active > 1
            if king:
                self._take_king()
            self._remove_player(seat, "forfeit", king)
        if self.n_active <= 1:
            self._finish("forfeit")
        elif self.cur in reasons:
            self._begin_turn(self._next_active(self.cur), 1, False)

    def _take_king(self) -> None:
        """A uniformly random King leaves the draw pile (a forfeit's, to keep R21)."""
        pile = self.pile
        top = len(pile) - 1
        places = [str(top - i) for i in range(top, -1, -1) if pile[i] == K]  # indexes from the top
        pick = self.chance.pick("forfeit-king", places)
        del pile[top - int(places[pick])]

    def result(self) -> GameResult:
        """Places: the survivor, then eliminated seats (later = better), then forfeited seats (tied)."""
        if self.kind:
            raise GameError("the game is not over")
        keys: list[tuple] = []
        order = {s: i for i, s in enumerate(self.eliminated)}
        forfeited = set(self.forfeits)
        for s in range(self.n):
            if s in forfeited:
                keys.append((2, 0))
            elif self.active[s]:
                keys.append((0, 0))
            else:
                keys.append((1, -order[s]))
        places = rank_places(keys)
        best = [s for s in range(self.n) if places[s] == 1]
        return GameResult(
            places=places,
            winner=best[0] if len(best) == 1 else None,
            capped=self.capped,
            forfeits=tuple(self.forfeits),
            reason=self.reason,
        )

    def cover_hidden_skips(self) -> None:
        """Poll every active seat for a Veto, one without a Queen with ``pass`` as its only action
        (see :meth:`State.cover_hidden_skips`).  Call it before the first decision."""
        self.cover = True

    @property
    def covering(self) -> bool:
        return self.covered

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now: the whitelist of B.5.  Every list and dict in it is new."""
        if not 0 <= seat < self.n:  # a negative index would read another seat's hidden hand
            raise GameError(f"no seat {seat} in a {self.n}-player game")
        kind = self.kind
        chain = None
        if self.chain is not None:
            play = self.chain
            chain = {
                "author": play["seat"], "play": play["play"], "cards": list(play["cards"]),
                "target": play["target"], "name": play["name"], "vetoes": list(self.vetoes),
            }
        waiting = kind == KD4
        return {
            "game": self.game,
            "seat": seat,
            "players": self.n,
            "variants": list(self.config.variants),
            "active": list(_SEATS_OF[self.active_mask]),
            "eliminated": list(self.eliminated),
            "forfeited": list(self.forfeits),
            "over": not kind,
            "current": self.cur,
            "T": self.T,
            "D": self.D,
            "starter": self.starter,
            "pile": len(self.pile),
            "kings": self.n_active - 1 - (1 if waiting else 0),
            "discard": list(self.discard),
            "hand_sizes": list(self.sizes),
            "hand": _hand_codes(self.hands[seat]),
            "removed": dict(self.removed),
            "chain": chain,
            "favour": {"from": self.cur, "to": self.favour_target} if kind == KD3 else None,
            "insert": {"min": 0, "max": len(self.pile)} if waiting else None,
            "takeable": [CODES[t] for t in HOLDABLE if self.dcount[t]] if kind == KD5 else None,
            "decision": KIND_NAMES[kind] if kind and seat == self.seat else None,
        }

    def pile_top_first(self) -> list[str]:
        """The pile as codes from the top down (it keeps each card as the index of its code)."""
        return [CODES[c] for c in reversed(self.pile)]

    def clone(self, chance: Chance | None = None) -> "KegState":
        """An independent copy; without ``chance`` it gets a deep copy of this game's chance source."""
        other = KegState.__new__(KegState)
        for name in KegState.__slots__:
            setattr(other, name, getattr(self, name))
        other.chance = copy.deepcopy(self.chance) if chance is None else chance
        other.log = list(self.log)  # events are never changed once logged
        other.decisions = list(self.decisions)
        other.removed = dict(self.removed)
        other.active = list(self.active)
        other.hands = [list(h) for h in self.hands]
        other.sizes = list(self.sizes)
        other.pile = list(self.pile)
        other.discard = list(self.discard)
        other.dcount = list(self.dcount)
        other.vetoes = list(self.vetoes)
        other.eliminated = list(self.eliminated)
        other.forfeits = list(self.forfeits)
        return other

    # --- automatic steps -------------------------------------------------------------------------------------

    def _next_active(self, seat: int) -> int:
        n = self.n
        active = self.active
        for step in range(1, n + 1):
            s = (seat + step) % n
            if active[s]:
                return s
        raise AssertionError("no active player")  # pragma: no cover - the game ends first

    def _begin_turn(self, seat: int, T: int, D: bool) -> None:
        """R4/R14: ``seat`` starts the play phase of a turn owing ``T`` turns (incl. this one)."""
        assert self.pile.count(K) == self.n_active - 1, "R21: the pile must hold active-1 Kings"
        self.cur, self.T, self.D = seat, T, D
        self.log.append({"type": "turn", "seat": seat, "T": T, "D": D})
        self.kind, self.seat = KD1, seat

    def _end_turn(self) -> None:
        """R14: one owed turn is over."""
        T = self.T - 1
        if T >= 1:
            self._begin_turn(self.cur, T, self.D)
        else:
            self._begin_turn(self._next_active(self.cur), 1, False)

    def _draw(self) -> None:
        """R15-R17."""
        cur = self.cur
        pile = self.pile
        t = pile.pop()
        h = self.hands[cur]
        if t == K:
            self.log.append({"type": "draw", "seat": cur, "card": "K", "pile": len(pile)})
            if h[BK]:  # R16: compulsory, automatic (KQ11)
                h[BK] -= 1
                self.sizes[cur] -= 1
                self.discard.append("Bk")
                self.dcount[BK] += 1
                self.log.append({"type": "douse", "seat": cur})
                self.kind = KD4  # the King waits outside the pile for its index
            else:
                self.discard.append("K")
                self.dcount[K] += 1
                self._remove_player(cur, "king")
                if self.n_active == 1:
                    self._finish("normal")
                else:
                    self._begin_turn(self._next_active(cur), 1, False)
        else:
            h[t] += 1
            self.sizes[cur] += 1
            self.log.append({"type": "draw", "seat": cur, "pile": len(pile),
                             "private": {"to": [cur], "card": CODES[t]}})
            self._end_turn()

    def _remove_player(self, seat: int, cause: str, king: bool = True) -> None:
        """R17/forfeit: the hand goes face up onto the discard pile and the seat leaves the game.
        A forfeit's King (taken from the pile or the doused one) goes with it, if ``king``."""
        h = self.hands[seat]
        codes = _hand_codes(h)
        if cause == "forfeit" and king:
            self.discard.append("K")
            self.dcount[K] += 1
        self.discard.extend(codes)
        dcount = self.dcount
        for t in HOLDABLE:
            dcount[t] += h[t]
            h[t] = 0
        self.sizes[seat] = 0
        self.active[seat] = False
        self.active_mask &= ~(1 << seat)
        self.n_active -= 1
        if cause != "forfeit":
            self.eliminated.append(seat)
        self.log.append({"type": "eliminate", "seat": seat, "cause": cause, "hand": codes,
                         "pile": len(self.pile)})

    def _play(self, op: int, a: Any, b: int, c: int, canon: Action) -> None:
        """R7: the cards go to the discard pile, then a veto window opens (R13a)."""
        cur = self.cur
        h = self.hands[cur]
        discard = self.discard
        dcount = self.dcount
        target = None
        name = None
        if op == OP_FIVE:
            cards = canon["cards"]
            for t in a:
                h[t] -= 1
                dcount[t] += 1
            discard.extend(cards)
            self.sizes[cur] -= 5
            kind = "five"
        else:
            count = 1 if op <= OP_FAVOUR else 2 if op == OP_PAIR else 3
            h[a] -= count
            dcount[a] += count
            self.sizes[cur] -= count
            code = CODES[a]
            cards = [code] * count
            discard.extend(cards)
            if op == OP_SINGLE:
                kind = "single"
            else:
                target = b
                if op == OP_FAVOUR:
                    kind = "favour"
                elif op == OP_PAIR:
                    kind = "pair"
                else:
                    kind = "triple"
                    name = CODES[c]
        event = {"type": "play", "seat": cur, "play": kind, "cards": list(cards), "target": target, "name": name}
        self.log.append(event)
        self.chain = event
        self.vetoes = []
        self.poll_last = cur
        self.poll_pos = 1
        self._poll()

    def _poll(self) -> None:
        """R13(c,d): ask the next Q holder clockwise; close the window once every active player passed."""
        n = self.n
        last = self.poll_last
        pos = self.poll_pos
        hands = self.hands
        active = self.active
        while pos <= n:
            q = (last + pos) % n
            if active[q] and (hands[q][Q] or self.cover):
                self.poll_pos = pos
                self.kind, self.seat = KD2, q
                self.covered = not hands[q][Q]
                return
            pos += 1
        self._close_window()

    def _veto(self, seat: int) -> None:
        """R13(c): one Q joins the chain; polling restarts after its author."""
        self.hands[seat][Q] -= 1
        self.sizes[seat] -= 1
        self.discard.append("Q")
        self.dcount[Q] += 1
        self.vetoes.append(seat)
        self.log.append({"type": "veto", "seat": seat, "vetoes": len(self.vetoes)})
        self.poll_last = seat
        self.poll_pos = 1
        self._poll()

    def _close_window(self) -> None:
        """R13(e): even number of Vetoes -> the play takes effect; odd -> it has none."""
        play = self.chain
        self.chain = None
        cur = self.cur
        if len(self.vetoes) & 1:
            self.log.append({"type": "window", "seat": cur, "outcome": "cancelled", "vetoes": len(self.vetoes)})
            self.kind, self.seat = KD1, cur  # R13(g): the play phase goes on, T and D unchanged
            return
        self.log.append({"type": "window", "seat": cur, "outcome": "resolved", "vetoes": len(self.vetoes)})
        kind = play["play"]
        if kind == "single":
            t = INDEX[play["cards"][0]]
            if t == J:  # R8
                nxt = self._next_active(cur)
                T = self.T + 2 if self.D and not self.simpler else 2
                self.log.append({"type": "double", "seat": cur, "next": nxt, "T": T})
                self._begin_turn(nxt, T, True)
            elif t == SKIP:  # R9
                self.log.append({"type": "skip", "seat": cur})
                self._end_turn()
            elif t == SHUFFLE:  # R11, KE3
                pile = self.pile
                order = self.chance.shuffle("shuffle", [CODES[x] for x in reversed(pile)])
                self.pile = [INDEX[x] for x in reversed(order)]
                self.log.append({"type": "shuffle", "seat": cur, "pile": len(pile)})
                self.kind, self.seat = KD1, cur
            else:  # R12 Peek
                top = self.pile[-1:-4:-1]
                self.log.append({"type": "peek", "seat": cur, "count": len(top),
                                 "private": {"to": [cur], "cards": [CODES[x] for x in top]}})
                self.kind, self.seat = KD1, cur
        elif kind == "favour":  # R10
            target = play["target"]
            if self.sizes[target]:
                self.favour_target = target
                self.kind, self.seat = KD3, target
            else:
                self.log.append({"type": "give", "from": target, "to": cur, "moved": False})
                self.kind, self.seat = KD1, cur
        elif kind == "pair":  # R12a, KE4
            target = play["target"]
            if self.sizes[target]:
                codes = _hand_codes(self.hands[target])
                t = INDEX[codes[self.chance.pick("steal", codes)]]
                self._move(target, cur, t)
                self.log.append({"type": "steal", "seat": cur, "target": target, "moved": True,
                                 "private": {"to": [cur, target], "card": CODES[t]}})
            else:
                self.log.append({"type": "steal", "seat": cur, "target": target, "moved": False})
            self.kind, self.seat = KD1, cur
        elif kind == "triple":  # R12b
            target = play["target"]
            name = play["name"]
            t = INDEX[name]
            moved = self.hands[target][t] > 0
            if moved:
                self._move(target, cur, t)
            self.log.append({"type": "handover", "seat": cur, "target": target, "name": name, "moved": moved})
            self.kind, self.seat = KD1, cur
        else:  # R23: the take is chosen at KD5
            self.kind, self.seat = KD5, cur

    def _move(self, giver: int, receiver: int, t: int) -> None:
        self.hands[giver][t] -= 1
        self.sizes[giver] -= 1
        self.hands[receiver][t] += 1
        self.sizes[receiver] += 1

    def _give(self, seat: int, t: int) -> None:
        """R10: the Favour's target hands over the card it chose."""
        cur = self.cur
        self._move(seat, cur, t)
        self.log.append({"type": "give", "from": seat, "to": cur, "moved": True,
                         "private": {"to": [seat, cur], "card": CODES[t]}})
        self.favour_target = -1
        self.kind, self.seat = KD1, cur

    def _insert(self, seat: int, p: int) -> None:
        """R16: the doused King goes back at index p from the top; the turn ends."""
        pile = self.pile
        pile.insert(len(pile) - p, K)
        self.log.append({"type": "insert", "seat": seat, "pile": len(pile), "private": {"to": [seat], "index": p}})
        self._end_turn()

    def _take(self, seat: int, t: int) -> None:
        """R23: the chosen card leaves the discard pile (its topmost copy) for the hand."""
        discard = self.discard
        code = CODES[t]
        for i in range(len(discard) - 1, -1, -1):
            if discard[i] == code:
                del discard[i]
                break
        self.dcount[t] -= 1
        self.hands[seat][t] += 1
        self.sizes[seat] += 1
        self.log.append({"type": "take", "seat": seat, "card": code})
        self.kind, self.seat = KD1, seat

    def _finish(self, reason: str) -> None:
        """R19 (or the cap, or a forfeit leaving one player): the game is over."""
        self.kind = 0
        self.chain = None
        self.reason = reason
        result = self.result()
        self.log.append({"type": "end", "reason": reason, "winner": result.winner, "places": list(result.places),
                         "capped": self.capped})


POWDER_KEG = Game(
    name="powder-keg",
    title="Powder Keg",
    min_players=2,
    max_players=5,
    variants=VARIANTS,
    default_points=3,
    state_class=KegState,
    decisions=KIND_NAMES[1:],
    policies_module="arena.games.powder_keg.policies",
    card_names={"K": "King (the keg)", "Bk": "Bucket", "Q": "Queen (Veto)", "J": "Jack (Double)", "10": "Skip",
                "9": "Favour", "8": "Shuffle", "7": "Peek"},  # seeds/powder-keg.md section 1
)
