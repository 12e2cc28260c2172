"""Reactor: keep the meter at 99 or below; whoever cannot play without pushing it over loses a token.

Rules: ``seeds/reactor.md``, the game as a bot sees it (numbers R1-R22, RQ1-RQ31, RD1/RD2, RE1/RE2 follow
the project's rulings; its JSON Schema is ``schema.json`` here); ``seeds/reactor-engine.md``, how this
module implements it.

- Seats: 2-6 players in seats ``0..n-1``; "left" is seat+1.  Everyone starts with 3 spark tokens.
- Deal: every round (RE1) shuffles all 60 cards; 3 cards go to each active player one at a time,
  starting with the round's starter and moving left; the rest is the draw pile (top first).
- Cards, by type code: ``S 4 5 6 7 OC 8 9 10 VS FR RL PB RP CB`` (suits never matter).
- Decisions: RD1 (a required play) and RD2 (an optional Overclock play, or STOP); everything else
  (draw-up, hand-over, overload, lapse, wash, elimination, the next deal) runs by itself.
- Observation: the public table (tokens, meter, direction, the turn's Q/B/k, the round's plays, hand
  sizes, pile size, the last revealed hand) plus the seat's own hand; never other hands or the pile.
- Scoring: the last active player wins.  Places: survivors first, then the eliminated (later is
  better); forfeited seats last.  A capped game ranks survivors by tokens.
"""

from __future__ import annotations

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

# -- Cards (A.1) ------------------------------------------------------------------------------

CODES: tuple[str, ...] = ("S", "4", "5", "6", "7", "OC", "8", "9", "10", "VS", "FR", "RL", "PB", "RP", "CB")
COUNTS: dict[str, int] = {
    "S": 4, "4": 4, "5": 5, "6": 5, "7": 3, "OC": 2, "8": 5, "9": 5, "10": 8,
    "VS": 4, "FR": 2, "RL": 4, "PB": 2, "RP": 4, "CB": 3,
}
# The unshuffled deck handed to the chance source; never mutated.
DECK: list[str] = [code for code in CODES for _ in range(COUNTS[code])]
CODE_INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}
HAND_SIZE = 3
MAX_METER = 99
DEFAULT_MAX_ROUNDS = 200
DEFAULT_MAX_DECISIONS = 20000

# A hand is also kept as one int: 2 bits per code (a hand never holds more than 3 cards), so what
# it can play is a cached look-up instead of a scan of the hand at every decision.
WEIGHT: dict[str, int] = {code: 4**i for i, code in enumerate(CODES)}


def _new_meter(code: str, value: int, m: int) -> int:
    """The meter after playing ``code`` (declared ``value`` for a Spark) at meter ``m`` (A.1)."""
    if code == "S":
        return m + value
    if code == "VS":
        return max(0, m - 10)  # RQ3: the meter stops at 0
    if code == "FR":
        return 0
    if code == "RL":
        return MAX_METER
    if code in ("PB", "RP", "CB"):
        return m
    return m + (7 if code == "OC" else int(code))


# -- Actions: shared constants, numbered in the fixed order of legal lists ---------------------

PLAY_ACTIONS: list[Action] = []
ACTION_CARD: list[str] = []
for _code in CODES:
    if _code == "S":
        for _value in (1, 11):
            PLAY_ACTIONS.append({"type": "play", "card": "S", "value": _value})
            ACTION_CARD.append("S")
    else:
        PLAY_ACTIONS.append({"type": "play", "card": _code})
        ACTION_CARD.append(_code)
STOP: Action = {"type": "stop"}
STOP_ID = len(PLAY_ACTIONS)
ACTIONS: list[Action] = PLAY_ACTIONS + [STOP]
# ACTION_METER[a][m]: the meter after action a at meter m, or -1 where it would exceed 99 (R9).
ACTION_METER: list[list[int]] = []
for _a in PLAY_ACTIONS:
    _row = [_new_meter(_a["card"], _a.get("value", 0), _m) for _m in range(MAX_METER + 1)]
    ACTION_METER.append([v if v <= MAX_METER else -1 for v in _row])
# Which side effect a card has besides the meter: 1 Overclock (R16), 2 Pass the Buck (R14),
# 3 Reverse Polarity (R15).
_EFFECT = {"OC": 1, "PB": 2, "RP": 3}
ACTION_EFFECT: list[int] = [_EFFECT.get(card, 0) for card in ACTION_CARD]
# Action ids of each code (two for a Spark).
CODE_ACTIONS: dict[str, list[int]] = {code: [] for code in CODES}
for _i, _card in enumerate(ACTION_CARD):
    CODE_ACTIONS[_card].append(_i)

EMPTY: list[Any] = []
_RD1 = [Decision(seat, "RD1") for seat in range(6)]
_RD2 = [Decision(seat, "RD2") for seat in range(6)]
_TO = [[seat] for seat in range(6)]  # the "to" lists of private event parts, shared

# Legal sets as bit masks over action ids: (actions held) & (actions that fit the meter).  Both
# caches stay small (about 800 hands and about 800 distinct sets), and the legal list of a
# decision is two dict look-ups, never rebuilt.
STOP_BIT = 1 << STOP_ID
FITS: list[int] = [
    sum(1 << a for a in range(STOP_ID) if ACTION_METER[a][m] >= 0) for m in range(MAX_METER + 1)
]
_HELD: dict[int, int] = {}  # hand key -> mask of the actions of the codes held
_SETS: dict[int, tuple[list[Action], list[int]]] = {}  # mask -> (legal actions, their ids)


def _held(key: int, hand: list[str]) -> int:
    """The action mask of a hand's codes (cached by hand key)."""
    mask = 0
    for code in set(hand):
        for a in CODE_ACTIONS[code]:
            mask |= 1 << a
    _HELD[key] = mask
    return mask


def _legal_set(mask: int) -> tuple[list[Action], list[int]]:
    """The interned legal list of a mask, in the fixed action order (RD1, RD2)."""
    ids = [a for a in range(len(ACTIONS)) if mask >> a & 1]
    entry = ([ACTIONS[a] for a in ids], ids)
    _SETS[mask] = entry
    return entry


def sort_hand(hand: list[str]) -> list[str]:
    """A hand in the fixed code order (card order carries no meaning, Clarification 6)."""
    return sorted(hand, key=CODE_INDEX.__getitem__)


class ReactorState(State):
    """A Reactor game in progress; ``apply`` mutates it, ``clone`` copies it."""

    game = "reactor"
    __slots__ = (
        "config", "chance", "log", "decisions",
        "n", "tokens", "hands", "hkey", "pile", "meter", "direction", "pending",
        "cur", "q", "b", "k", "round", "starter", "plays", "revealed",
        "eliminated", "forfeited", "n_active", "n_decisions", "max_decisions", "max_rounds",
        "outside", "over", "capped", "reason", "_result", "_legal", "_ids", "_decision",
    )

    # The fields, for readers: ``pile`` keeps the TOP card LAST (draws take from the end);
    # ``hkey[s]`` is the int key of ``hands[s]`` (see WEIGHT); ``q``/``b``/``k`` are R7's Q, B and
    # the 1-based number of the play about to be made; ``plays`` are this round's plays as the
    # observation shows them (a play event less its "type", never mutated once made);
    # ``revealed`` is (seat, hand, round) of the latest overload; ``eliminated`` is in order;
    # ``outside`` counts this round's cards in none of hands, pile or plays (a hand that left play
    # with its eliminated owner, or cards played before a set-up position), for the invariants.

    def __init__(self, config: GameConfig, chance: Chance) -> None:
        n = config.players
        self.config = config
        self.chance = chance
        self.log: list[Event] = []
        self.decisions: list[tuple[int, Action]] = []
        self.n = n
        self.tokens = [3] * n  # R3
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.hkey = [0] * n
        self.pile: list[str] = []
        self.meter = 0
        self.direction = 1
        self.pending = False
        self.cur = 0
        self.q = 1
        self.b = 0
        self.k = 1
        self.round = 0
        self.starter = 0
        self.plays: list[dict[str, Any]] = []
        self.revealed: tuple[int, list[str], int] | None = None
        self.eliminated: list[int] = []
        self.forfeited: list[int] = []
        self.n_active = n
        self.outside = 0
        self.n_decisions = 0
        self.max_decisions = config.max_decisions if config.max_decisions is not None else DEFAULT_MAX_DECISIONS
        self.max_rounds = config.max_rounds if config.max_rounds is not None else DEFAULT_MAX_ROUNDS
        self.over = False
        self.capped = False
        self.reason = "normal"
        self._result: GameResult | None = None
        self._legal: list[Action] = EMPTY
        self._ids: list[int] = EMPTY
        self._decision: Decision | None = None

    @classmethod
    def new(cls, config: GameConfig, chance: Chance) -> "ReactorState":
        """Deal round 1 and run up to the first decision (R1, R4, R5, RE1, RE2)."""
        REACTOR.check_config(config)  # R1: 2-6 players only
        state = cls(config, chance)
        starter = config.starter
        if starter is None:  # RE2: a random first starter is a recorded chance event
            starter = chance.pick("starter", [str(seat) for seat in range(config.players)])
        if not state._start_round(starter):
            state._advance()
        return state

    @classmethod
    def from_position(
        cls,
        config: GameConfig,
        hands: list[list[str]],
        pile: list[str],
        *,
        chance: Chance | None = None,
        meter: int = 0,
        current: int = 0,
        required: int = 1,
        bonus: int = 0,
        play: int = 1,
        direction: int = 1,
        pending: bool = False,
        tokens: list[int] | None = None,
        eliminated: list[int] | None = None,
        round: int = 1,
        starter: int | None = None,
        decisions_made: int = 0,
    ) -> "ReactorState":
        """A game set up directly in a given position (tests, analysis), then run to its first decision.

        ``pile`` is listed top first.  ``required``/``bonus``/``play`` are R7's Q, B and k of the
        current turn.  Seats with 0 tokens are eliminated, in the order ``eliminated`` gives (default:
        seat order).  ``starter`` is the round's starter (default: ``current``); ``chance`` deals
        the rounds that follow (default: ``SeededChance(0)``).
        """
        REACTOR.check_config(config)
        n = config.players
        if chance is None:
            chance = SeededChance(0)
        state = cls(config, chance)
        state.tokens = [3] * n if tokens is None else list(tokens)
        out = [s for s in range(n) if state.tokens[s] <= 0]
        order = out if eliminated is None else list(eliminated)
        if sorted(order) != out or len(hands) != n:
            raise GameError("eliminated seats must be exactly the seats with no tokens")
        if any(hands[s] for s in out) or any(len(h) > HAND_SIZE for h in hands):
            raise GameError("eliminated seats hold no cards, and nobody holds more than 3")
        cards = [c for h in hands for c in h] + list(pile)
        if any(cards.count(c) > COUNTS[c] for c in set(cards)):
            raise GameError("more copies of a card than the deck has")
        if not (0 <= meter <= MAX_METER and direction in (1, -1) and current not in out and n - len(out) >= 2):
            raise GameError("not a position of a game in progress")
        state.eliminated = order
        state.n_active = n - len(out)
        state.hands = [list(h) for h in hands]
        state.hkey = [sum(WEIGHT[c] for c in h) for h in hands]
        state.pile = list(reversed(pile))
        state.outside = len(DECK) - len(cards)
        state.meter = meter
        state.direction = direction
        state.pending = pending
        state.cur = current
        state.q = required
        state.b = bonus
        state.k = play
        state.round = round
        state.starter = current if starter is None else starter
        state.n_decisions = decisions_made
        state.log.append({
            "type": "position", "round": round, "starter": state.starter, "tokens": list(state.tokens),
            "meter": meter, "direction": direction, "pending": pending, "current": current,
            "required": required, "bonus": bonus, "play": play,
            "pile": len(pile), "hand_sizes": [len(h) for h in hands],
        })
        for s in range(n):
            if s not in out:
                state.log.append({"type": "hand", "seat": s, "count": len(hands[s]),
                                  "private": {"to": _TO[s], "cards": sort_hand(hands[s])}})
        state._advance()
        return state

    def check_invariants(self) -> None:
        """Assert what must hold between any two steps (card conservation, bounds, bookkeeping)."""
        n = self.n
        held = sum(len(h) for h in self.hands)
        assert held + len(self.pile) + len(self.plays) + self.outside == len(DECK), "cards lost or made"
        assert self.outside >= 0
        cards = [c for h in self.hands for c in h] + self.pile + [e["card"] for e in self.plays]
        assert all(cards.count(c) <= COUNTS[c] for c in set(cards)), "more copies than the deck has"
        assert 0 <= self.meter <= MAX_METER and self.direction in (1, -1)  # R9
        assert all(0 <= t <= 3 for t in self.tokens)  # R3
        assert sorted(self.eliminated) == [s for s in range(n) if self.tokens[s] == 0]
        assert self.n_active == n - len(self.eliminated)
        assert set(self.forfeited) <= set(self.eliminated)
        assert all(len(h) <= HAND_SIZE for h in self.hands)
        assert self.hkey == [sum(WEIGHT[c] for c in h) for h in self.hands]
        assert not any(self.hands[s] for s in self.eliminated)
        assert self.n_decisions == sum(1 for _, a in self.decisions if a["type"] != "forfeit")
        decision = self._decision
        if decision is None:
            assert self.over and self._result is not None and not self._legal
            assert self.n_active == 1 or self.capped or sorted(self.forfeited) == list(range(n))
        else:
            assert not self.over and self.n_active >= 2 and decision.seat == self.cur
            assert self.tokens[self.cur] > 0 and self.hands[self.cur] and self._legal
            assert 1 <= self.k <= self.q + self.b and self.q in (1, 2)
            assert decision.kind == ("RD1" if self.k <= self.q else "RD2")
            assert (STOP in self._legal) == (decision.kind == "RD2")

    # -- The State interface ------------------------------------------------------------------

    def to_move(self) -> Decision | None:
        return self._decision

    def legal_actions(self) -> list[Action]:
        # A copy of the cached list: a caller that reorders it must not corrupt the shared cache.
        return list(self._legal)

    def apply(self, action: Action) -> None:
        legal = self._legal
        try:
            i = legal.index(action)  # identity first, then ==
        except ValueError:
            if self.over:
                raise IllegalAction("the game is over") from None
            raise IllegalAction(f"{action!r} is not legal now; legal: {legal!r}") from None
        a = self._ids[i]
        p = self.cur
        # Record the engine's own constant, so the record holds exactly what was offered.
        self.decisions.append((p, legal[i]))
        self.n_decisions += 1
        if a == STOP_ID:
            self.log.append({"type": "stop", "seat": p})
            self.k = self.q + self.b + 1  # R11: the plays end
        else:
            self._play(p, a)
        if self.n_decisions >= self.max_decisions:
            self._finish("cap")  # safety cap: the game ends right after this decision
            return
        self._advance()

    def observation(self, seat: int) -> Observation:
        """A.5 as a whitelist: public table state, the round's plays, and only ``seat``'s own hand."""
        if not 0 <= seat < self.n:
            raise GameError(f"no seat {seat} in a {self.n}-player game")
        revealed = self.revealed
        # Every list and dict is new (the plays are shallow copies of flat dicts): a caller may
        # change the observation without touching the game.
        return {
            "game": self.game,
            "seat": seat,
            "players": self.n,
            "tokens": list(self.tokens),
            "active": [t > 0 for t in self.tokens],
            "eliminated": list(self.eliminated),
            "round": self.round,
            "starter": self.starter,
            "current": None if self.over else self.cur,
            "meter": self.meter,
            "direction": self.direction,
            "pending": self.pending,
            "required": self.q,
            "bonus": self.b,
            "play": self.k,
            "hand": sort_hand(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "pile": len(self.pile),
            "plays": list(map(dict.copy, self.plays)),
            "revealed": None
            if revealed is None
            else {"seat": revealed[0], "round": revealed[2], "hand": list(revealed[1])},
        }

    def forfeit(self, seat: int, reason: str = "forfeit") -> None:
        """Harness rule: the deciding seat leaves at once, hand unseen; play goes on by R13."""
        decision = self._decision
        if decision is None:
            raise GameError("the game is over")
        if decision.seat != seat:
            raise GameError(f"only seat {decision.seat}, which must decide now, can forfeit")
        self.decisions.append((seat, {"type": "forfeit", "reason": reason}))
        self.log.append({"type": "forfeit", "seat": seat, "reason": reason})
        self.forfeited.append(seat)
        self.tokens[seat] = 0
        self._eliminate(seat)  # the hand leaves play face down: nobody sees it
        if self.n_active == 1:
            self._finish("forfeit")
            return
        # The rest of the turn is abandoned (no draw-up); a Pass the Buck mark already set stays.
        nxt = self._next_holder(seat)
        if nxt < 0:
            if self._wash():
                return
        else:
            self._begin_turn(nxt)
        self._advance()

    def forfeit_absent(self, reasons: dict[int, str]) -> None:
        """Harness rule: absent seats leave before the first decision, as a forfeit would have
        them; if the starter is among them, the turn passes by R13 from it."""
        check_absent(self, reasons, [s for s in range(self.n) if self.tokens[s] > 0])
        for seat in sorted(reasons):
            self.decisions.append((seat, {"type": "forfeit", "reason": reasons[seat], "absent": True}))
            self.log.append({"type": "forfeit", "seat": seat, "reason": reasons[seat]})
            self.forfeited.append(seat)
            self.tokens[seat] = 0
            self._eliminate(seat)
        if self.n_active <= 1:
            self._finish("forfeit")
        elif self.cur in reasons:
            self._begin_turn(self._next_holder(self.cur))  # every hand still in holds 3 cards
            self._advance()

    def result(self) -> GameResult:
        if self._result is None:
            raise GameError("the game is not over")
        return self._result

    def clone(self, chance: Chance | None = None) -> "ReactorState":
        other = object.__new__(ReactorState)
        for name in ReactorState.__slots__:
            setattr(other, name, getattr(self, name))
        # Events, plays, actions, the revealed hand and legal lists are never mutated once made, so
        # sharing them is safe; every list that changes in play is copied.
        other.chance = self.chance if chance is None else chance
        other.log = self.log.copy()
        other.decisions = self.decisions.copy()
        other.tokens = self.tokens.copy()
        other.hands = [h.copy() for h in self.hands]
        other.hkey = self.hkey.copy()
        other.pile = self.pile.copy()
        other.plays = self.plays.copy()
        other.eliminated = self.eliminated.copy()
        other.forfeited = self.forfeited.copy()
        return other

    # -- Automatic steps -----------------------------------------------------------------------

    def _play(self, p: int, a: int) -> None:
        """R8: move one card to the discard pile and apply its effect (R14-R16)."""
        card = ACTION_CARD[a]
        self.hands[p].remove(card)
        self.hkey[p] -= WEIGHT[card]
        meter = self.meter = ACTION_METER[a][self.meter]
        effect = ACTION_EFFECT[a]
        if effect:
            if effect == 1:
                self.b += 1  # R16: each Overclock grants its own optional play
            elif effect == 2:
                self.pending = True  # R14, RQ9: a mark, so two of them still mean 2
            else:
                self.direction = -self.direction  # R15
        self.k += 1
        # The event, and the same fields without "type" for the observation's "plays" (A.5).
        if card == "S":
            value = ACTIONS[a]["value"]
            self.log.append({"type": "play", "seat": p, "card": card, "value": value, "meter": meter})
            self.plays.append({"seat": p, "card": card, "value": value, "meter": meter})
        else:
            self.log.append({"type": "play", "seat": p, "card": card, "meter": meter})
            self.plays.append({"seat": p, "card": card, "meter": meter})

    def _advance(self) -> None:
        """Run automatic steps (lapse, overload, draw-up, hand-over, wash) until a decision or the end."""
        hkey = self.hkey
        while True:
            p = self.cur
            k = self.k
            q = self.q
            hk = hkey[p]
            if k <= q:
                if not hk:
                    # R10, RQ12: no cards left for the plays still owed; they lapse, no penalty.
                    self.log.append({"type": "lapse", "seat": p, "count": q - k + 1})
                else:
                    mask = (_HELD.get(hk) or _held(hk, self.hands[p])) & FITS[self.meter]
                    if mask:
                        self._legal, self._ids = _SETS.get(mask) or _legal_set(mask)
                        self._decision = _RD1[p]
                        return
                    if self._overload(p):  # R17: a required play and nothing legal
                        return
                    continue  # a new round was dealt
            elif k <= q + self.b and hk:
                mask = (_HELD.get(hk) or _held(hk, self.hands[p])) & FITS[self.meter]
                if mask:
                    # R11: STOP is offered only beside a play that could still be made.
                    mask |= STOP_BIT
                    self._legal, self._ids = _SETS.get(mask) or _legal_set(mask)
                    self._decision = _RD2[p]
                    return
                # R11, RQ14: nothing legal for the optional play: it is skipped, never an overload.
            self._draw_up(p)
            nxt = self._next_holder(p)
            if nxt < 0:
                if self._wash():
                    return
            else:
                self._begin_turn(nxt)

    def _begin_turn(self, p: int) -> None:
        """R7: set the quotas; a pending Pass the Buck is consumed by this turn."""
        self.cur = p
        self.q = 2 if self.pending else 1
        self.pending = False
        self.b = 0
        self.k = 1

    def _draw_up(self, p: int) -> None:
        """R12, R20, RQ27: draw to 3 from the top while the pile lasts."""
        hand = self.hands[p]
        need = HAND_SIZE - len(hand)
        pile = self.pile
        if need <= 0 or not pile:
            return
        drawn = pile[:-need - 1:-1]  # the top card is last in ``pile``
        del pile[-need:]
        hand += drawn
        for card in drawn:
            self.hkey[p] += WEIGHT[card]
        self.log.append({"type": "draw", "seat": p, "count": len(drawn), "private": {"to": _TO[p], "cards": drawn}})

    def _next_holder(self, p: int) -> int:
        """R13: the next seat from ``p`` in the current direction that is active and holds a card
        (``p`` itself after a full circle), or -1 if nobody holds a card."""
        n = self.n
        d = self.direction
        hkey = self.hkey  # eliminated seats hold no cards, so a non-empty hand means active
        s = p
        for _ in range(n):
            s = (s + d) % n
            if hkey[s]:
                return s
        return -1

    def _next_active_left(self, p: int) -> int:
        """R19: the first active seat to the left of ``p`` (seat+1 whatever the direction)."""
        n = self.n
        tokens = self.tokens
        s = p
        for _ in range(n):
            s = (s + 1) % n
            if tokens[s] > 0:
                return s
        raise AssertionError("no active player")  # pragma: no cover - the game ended before

    def _overload(self, p: int) -> bool:
        """R17, RQ19, RQ25: reveal, lose a token, end the round.  True if the game ended."""
        hand = sort_hand(self.hands[p])
        self.log.append({"type": "overload", "seat": p, "meter": self.meter, "hand": hand})
        self.revealed = (p, hand, self.round)
        self.pending = False
        tokens = self.tokens[p] - 1
        self.tokens[p] = tokens
        self.log.append({"type": "token", "seat": p, "tokens": tokens})
        if tokens == 0:
            self._eliminate(p)
        if self.n_active == 1:  # R21, RQ26: no further round
            self._finish("normal")
            return True
        # R19, RQ24: the overloaded player starts, or the next active player to their left.
        return self._start_round(p if tokens else self._next_active_left(p))

    def _wash(self) -> bool:
        """R18, RQ22, RQ23: nobody holds a card; no token changes.  True if the game ended (cap)."""
        self.log.append({"type": "wash", "round": self.round})
        return self._start_round(self._next_active_left(self.starter))

    def _eliminate(self, p: int) -> None:
        """R3: out for the rest of the game, holding no cards."""
        self.outside += len(self.hands[p])
        self.hands[p] = []
        self.hkey[p] = 0
        self.eliminated.append(p)
        self.n_active -= 1
        self.log.append({"type": "eliminated", "seat": p})

    def _start_round(self, starter: int) -> bool:
        """R5, RE1, RQ18: shuffle all 60, deal 3 each from the starter leftwards.  True if capped."""
        r = self.round + 1
        if r > self.max_rounds:
            self._finish("cap")
            return True
        self.round = r
        self.starter = starter
        order = self.chance.shuffle("deck", DECK)
        n = self.n
        tokens = self.tokens
        seats = [(starter + i) % n for i in range(n) if tokens[(starter + i) % n] > 0]
        dealt = HAND_SIZE * len(seats)
        hands = self.hands
        hkey = self.hkey
        for s in range(n):
            hands[s] = []
            hkey[s] = 0
        # One card at a time round the table: the j-th seat gets cards j, j+a, j+2a.
        for j, s in enumerate(seats):
            hand = order[j:dealt:len(seats)]
            hands[s] = hand
            hkey[s] = sum(WEIGHT[c] for c in hand)
        self.pile = order[:dealt - 1:-1]  # the top card (order[dealt]) goes last
        self.meter = 0
        self.direction = 1
        self.pending = False
        self.plays = []
        self.outside = 0
        self.log.append({"type": "round", "round": r, "starter": starter, "pile": len(self.pile)})
        for s in seats:
            self.log.append({"type": "hand", "seat": s, "count": HAND_SIZE, "private": {"to": _TO[s], "cards": sort_hand(hands[s])}})
        self._begin_turn(starter)
        return False

    def _finish(self, reason: str) -> None:
        """End the game and rank the seats (R21; safety cap; forfeits rank last)."""
        self.over = True
        self.capped = reason == "cap"
        self.reason = reason
        self._decision = None
        self._legal = EMPTY
        self._ids = EMPTY
        forfeited = self.forfeited
        order = self.eliminated
        keys: list[tuple] = []
        for s in range(self.n):
            if s in forfeited:
                keys.append((2, 0))
            elif self.tokens[s] > 0:
                keys.append((0, -self.tokens[s]))
            else:
                keys.append((1, -order.index(s)))  # eliminated later = better place
        places = rank_places(keys)
        first = [s for s in range(self.n) if places[s] == 1]
        winner = first[0] if len(first) == 1 else None
        self._result = GameResult(places, winner, self.capped, tuple(forfeited), reason)
        self.log.append({"type": "end", "reason": reason, "winner": winner, "places": list(places),
                         "capped": self.capped})


REACTOR = Game(
    name="reactor",
    title="Reactor",
    min_players=2,
    max_players=6,
    variants=(),
    default_points=1,
    state_class=ReactorState,
    decisions=("RD1", "RD2"),
    policies_module="arena.games.reactor.policies",
    card_names={"S": "Spark (1 or 11)", "OC": "Overclock (+7, one extra play)", "VS": "Vent Steam (-10)",
                "FR": "Full Reset (0)", "RL": "Redline (99)", "PB": "Pass the Buck", "RP": "Reverse Polarity",
                "CB": "Coffee Break"},  # seeds/reactor.md A.1
)
