"""Reactor policies of three clearly different strengths (random lives in ``arena.games.policy``).

All of them see only what a bot sees: the observation and the legal actions (``seeds/reactor.md`` A.5).

- ``heuristic`` knows one rule, from the current observation alone: keep the special cards for
  when no number fits.  It plays any number card that fits, at random, and never takes an
  Overclock's optional play.
- ``tuned`` (not bundled; kept to measure against) scores each legal play by the pressure it
  puts on the next player (the chance, from the deck's make-up, that they hold nothing playable
  at the new meter) minus what the card is worth to keep, and the risk of being stuck itself.
  A plain beginner's order (the biggest number that fits first, specials last: ``simple_choice``)
  is nearly as good; the game's skill lies mostly in that one idea.
- ``strong`` reads the table.  From every turn played this round it keeps, per opponent, a
  probability distribution over the cards they still hold (the cards they kept must explain the
  plays they made; drawn cards are random from the unseen ones), and it learns during the game
  which style explains each opponent best (the beginner order, the tuned scoring, or random
  play).  Once the meter is high enough for overloads to be near, it deals the unseen cards many
  times from those beliefs and plays each sensible move out to the end of the round, every
  opponent in its learned style, itself with the tuned scoring; a move replaces the tuned
  choice only when it is clearly better on the same deals.  At a low meter it plays the tuned
  choice.
"""

from __future__ import annotations

from collections import Counter
from itertools import accumulate
from math import comb

from arena.games.base import Action, GameConfig, Observation
from arena.games.chance import Chance
from arena.games.reactor.rules import (
    ACTION_CARD,
    ACTION_EFFECT,
    ACTION_METER,
    CODE_ACTIONS,
    CODE_INDEX,
    CODES,
    COUNTS,
    DECK,
    HAND_SIZE,
    MAX_METER,
    STOP_ID,
    ReactorState,
)
from arena.games.policy import Policy

_ID: dict[tuple[str, int | None], int] = {
    (card, 1 if card == "S" and a == 0 else 11 if card == "S" else None): a
    for a, card in enumerate(ACTION_CARD)
}


def action_id(action: Action) -> int:
    """The engine's number of a legal action (STOP included)."""
    if action.get("type") == "stop":
        return STOP_ID
    return _ID[(action["card"], action.get("value"))]


def _best(scores: list[float]) -> int:
    """The index of the highest score; the first one on ties."""
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best


# -- The beginner's order (a style the strong bot's table reader models) ---------------------

# A natural beginner's order of preference, best first.  STOP comes first: an Overclock's extra
# play is a gamble a beginner does not take.  Then the plain numbers, biggest first (a big number
# left in the hand is the card that will not fit later), a Spark after them (it fits almost always,
# so it is worth keeping), and the specials last, because they are what saves you when nothing
# else fits.  Measured, this order alone is nearly as good as the tuned scoring below.
_SIMPLE_ORDER: list[tuple[str, int | None]] = [
    ("STOP", None),
    ("10", None), ("9", None), ("8", None), ("OC", None), ("7", None), ("6", None), ("5", None), ("4", None),
    ("S", 11), ("S", 1),
    ("RL", None), ("PB", None), ("RP", None), ("CB", None), ("VS", None), ("FR", None),
]
SIMPLE_RANK: list[int] = [0] * (STOP_ID + 1)
for _rank, _key in enumerate(_SIMPLE_ORDER):
    SIMPLE_RANK[STOP_ID if _key[0] == "STOP" else _ID[_key]] = _rank


def simple_choice(ids: list[int]) -> int:
    """The index in ``ids`` (legal action ids) of the beginner order's choice."""
    best = 0
    for i in range(1, len(ids)):
        if SIMPLE_RANK[ids[i]] < SIMPLE_RANK[ids[best]]:
            best = i
    return best


# -- The simple heuristic (the bundled ``heuristic``) ---------------------------------------

NUMBER_CARDS = frozenset({"4", "5", "6", "7", "8", "9", "10", "OC", "S"})


class ReactorHeuristic(Policy):
    """The one rule every new player learns first: keep your special cards for when nothing else
    fits.  It plays any number card that fits (at random), a special only when no number fits, and
    never gambles on an Overclock's extra play.  It does not know which number to prefer."""

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        for action in legal:
            if action.get("type") == "stop":
                return action
        numbers = [a for a in legal if a.get("card") in NUMBER_CARDS]
        pool = numbers or legal
        return pool[self.rng.randrange(len(pool))]


# -- The tuned scoring (the old heuristic; the strong bot's own move model) -------------------

# What a card is worth to keep, i.e. the cost of spending it now.  Lifelines can always be
# played (a hand with one cannot overload, R9) and the meter-lowering ones also rescue the next
# turns; a Spark fits up to 98; small numbers fit later than big ones, and a 10 is a liability.
_KEEP_CODE = {
    "S": 0.14, "4": 0.06, "5": 0.05, "6": 0.04, "7": 0.03, "OC": 0.03, "8": 0.02, "9": 0.01, "10": 0.0,
    "VS": 0.28, "FR": 0.30, "RL": 0.30, "PB": 0.22, "RP": 0.18, "CB": 0.16,
}
KEEP: list[float] = [_KEEP_CODE[card] for card in ACTION_CARD] + [0.0]
PRESSURE_WEIGHT = 0.5

# FIT[m]: the share of the deck that can be played at meter m (a Spark fits if either value does).
FIT: list[float] = [
    sum(COUNTS[code] for code in CODES if any(ACTION_METER[a][m] >= 0 for a in CODE_ACTIONS[code])) / len(DECK)
    for m in range(MAX_METER + 1)
]
# STUCK[m][s]: the chance that s random cards hold nothing playable at meter m; STUCK2 for a
# player owing two plays (either one can fail).
STUCK: list[list[float]] = [[(1.0 - FIT[m]) ** s if s else 0.0 for s in range(4)] for m in range(MAX_METER + 1)]
STUCK2: list[list[float]] = [
    [1.0 - (1.0 - STUCK[m][s]) * (1.0 - STUCK[m][max(s - 1, 0)]) if s else 0.0 for s in range(4)]
    for m in range(MAX_METER + 1)
]

CODE_FITS: dict[str, list[bool]] = {
    code: [any(ACTION_METER[a][m] >= 0 for a in CODE_ACTIONS[code]) for m in range(MAX_METER + 1)] for code in CODES
}


class Params:
    """The tuned scoring's knobs."""

    keep = KEEP
    weight = PRESSURE_WEIGHT
    self_weight = 0.5
    delta = 8


def _final_score(a: int, m: int, pending: bool, fwd: int, back: int, rest: list[str], pile: int, P=Params) -> float:
    """The one-ply value of ending the turn with action ``a`` at meter ``m`` (STOP included).

    ``fwd``/``back`` are the hand sizes of the next player in the current and the reversed
    direction (0: nobody else holds a card)."""
    if a == STOP_ID:
        m2, effect = m, 0
    else:
        m2, effect = ACTION_METER[a][m], ACTION_EFFECT[a]
    size = back if effect == 3 else fwd
    table = STUCK2 if pending or effect == 2 else STUCK
    score = P.weight * table[m2][min(size, 3)] - P.keep[a]
    if P.self_weight:
        r = min(m2 + P.delta, MAX_METER)
        if not any(CODE_FITS[c][r] for c in rest):
            score -= P.self_weight * (1.0 - FIT[r]) ** min(3 - len(rest), pile)
    return score


def heuristic_scores(
    ids: list[int], hand: list[str], m: int, required: int, play: int, pending: bool, fwd: int, back: int,
    pile: int, P=Params,
) -> list[float]:
    """The tuned score per legal action id (higher is better) for the player to move."""
    if play >= required:  # the last required play, or an optional one: the turn may end here
        scores = []
        for a in ids:
            rest = list(hand)
            if a != STOP_ID:
                rest.remove(ACTION_CARD[a])
            scores.append(_final_score(a, m, pending, fwd, back, rest, pile, P))
        return scores
    # The first of two required plays (a Pass the Buck): look at the best follow-up from what is left.
    scores = []
    for a in ids:
        m2 = ACTION_METER[a][m]
        rest = list(hand)
        rest.remove(ACTION_CARD[a])
        flip = ACTION_EFFECT[a] == 3
        f, b = (back, fwd) if flip else (fwd, back)
        pend = pending or ACTION_EFFECT[a] == 2
        follow = []
        for code in set(rest):
            last = list(rest)
            last.remove(code)
            for x in CODE_ACTIONS[code]:
                if ACTION_METER[x][m2] >= 0:
                    follow.append(_final_score(x, m2, pend, f, b, last, pile, P))
        if follow:
            scores.append(max(follow) - P.keep[a])
        elif rest:
            scores.append(-10.0)  # the second play would overload (RQ8)
        else:
            scores.append(_final_score(a, m, pending, fwd, back, rest, pile, P))  # nothing left: the play lapses
    return scores


def _next_size(sizes: list[int], seat: int, direction: int) -> int:
    """The hand size of the next seat holding cards in ``direction``, 0 if nobody else holds any."""
    n = len(sizes)
    s = seat
    for _ in range(n - 1):
        s = (s + direction) % n
        if sizes[s]:
            return sizes[s]
    return 0


def observation_scores(observation: Observation, ids: list[int], P=Params) -> list[float]:
    """Tuned scores of the legal action ids, from the observation alone."""
    sizes = observation["hand_sizes"]
    seat, direction = observation["seat"], observation["direction"]
    return heuristic_scores(
        ids, observation["hand"], observation["meter"], observation["required"], observation["play"],
        observation["pending"], _next_size(sizes, seat, direction), _next_size(sizes, seat, -direction),
        observation["pile"], P,
    )


class ReactorTuned(Policy):
    """One ply of the tuned scoring: pressure the next player, keep lifelines and small cards."""

    params = Params

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        assert observation is not None
        return legal[_best(observation_scores(observation, [action_id(a) for a in legal], self.params))]


# -- Reading the opponents' hands -----------------------------------------------------------

# The styles an opponent is explained by: the beginner rules, the tuned scoring, uniform play.
SIMPLE, TUNED, RANDOM = 0, 1, 2
STYLE_PRIOR = (0.4, 0.4, 0.2)
STYLE_FLOOR = 0.02  # no style is ever ruled out for good: a bot may play like none of them


def unseen_cards(observation: Observation) -> list[str]:
    """The cards this seat cannot see: the deck minus this round's plays, its hand, and a hand
    revealed in this round."""
    count = Counter(DECK)
    count.subtract(p["card"] for p in observation["plays"])
    count.subtract(observation["hand"])
    revealed = observation.get("revealed")
    if revealed and revealed["round"] == observation["round"]:
        count.subtract(revealed["hand"])
    return [code for code in CODES for _ in range(max(count[code], 0))]


def _legal_ids(hand: tuple[str, ...] | list[str], m: int, optional: bool) -> list[int]:
    """The legal action ids of a hand at meter ``m``, in the engine's order."""
    ids = sorted(a for code in set(hand) for a in CODE_ACTIONS[code] if ACTION_METER[a][m] >= 0)
    if ids and optional:
        ids.append(STOP_ID)
    return ids


def _sorted(cards) -> tuple[str, ...]:
    return tuple(sorted(cards, key=CODE_INDEX.__getitem__))


def _multisets(size: int) -> list[tuple[str, ...]]:
    """Every multiset of ``size`` codes, in code order."""
    out: list[tuple[str, ...]] = [()]
    for _ in range(size):
        out = [m + (c,) for m in out for c in CODES[CODE_INDEX[m[-1]] if m else 0:]]
    return out


_MULTISETS = [_multisets(r) for r in range(HAND_SIZE + 1)]


def _minus(hand: tuple[str, ...], cards: list[str]) -> tuple[str, ...] | None:
    """``hand`` without ``cards`` (None if it does not hold them all)."""
    rest = list(hand)
    for c in cards:
        if c not in rest:
            return None
        rest.remove(c)
    return tuple(rest)


# (rest, ids, m0, burdened, sizes) -> likelihood of the turn under each style.
_LIKELIHOOD: dict[tuple, tuple[float, float, float]] = {}


def turn_likelihoods(rest: tuple[str, ...], ids: tuple[int, ...], m0: int, burdened: bool,
                     sizes: tuple[int, int]) -> tuple[float, float, float]:
    """How likely each style is to make exactly this turn (plays ``ids`` from meter ``m0``) holding
    ``rest`` plus the cards played.  A turn that ends while an optional play was still possible is
    a STOP (R11); one that ends with a required play owed needs an empty hand (R10)."""
    key = (rest, ids, m0, burdened, sizes)
    known = _LIKELIHOOD.get(key)
    if known is not None:
        return known
    if len(_LIKELIHOOD) > 400_000:
        _LIKELIHOOD.clear()
    hand = list(rest) + [ACTION_CARD[a] for a in ids]
    m, q, b, k, pending, flipped = m0, 2 if burdened else 1, 0, 1, False, False
    simple = tuned = rand = 1.0
    for a in (*ids, STOP_ID):
        legal = _legal_ids(hand, m, k > q)
        if not legal or k > q + b:
            if a != STOP_ID:
                simple = tuned = rand = 0.0  # the turn had to end here
            break
        if a not in legal:
            simple = tuned = rand = 0.0
            break
        if len(legal) > 1:
            rand /= len(legal)
            if simple and legal[simple_choice(legal)] != a:
                simple = 0.0
            if tuned:
                fwd, back = sizes[::-1] if flipped else sizes
                if legal[_best(heuristic_scores(legal, hand, m, q, k, pending, fwd, back, 3))] != a:
                    tuned = 0.0
        if a == STOP_ID:
            break
        hand.remove(ACTION_CARD[a])
        m = ACTION_METER[a][m]
        effect = ACTION_EFFECT[a]
        b += effect == 1
        pending = pending or effect == 2
        flipped = flipped != (effect == 3)
        k += 1
    result = _LIKELIHOOD[key] = (simple, tuned, rand)
    return result


_GROUPED = [[(ms, tuple(Counter(ms).items())) for ms in _MULTISETS[r]] for r in range(HAND_SIZE + 1)]


def _draws(size: int, pool: Counter) -> list[tuple[tuple[str, ...], float]]:
    """Every multiset of ``size`` cards that a draw from ``pool`` can bring, with its chance."""
    total = sum(pool.values())
    if total < size:
        return []
    whole = comb(total, size)
    out = []
    for cards, groups in _GROUPED[size]:
        p = 1
        for code, n in groups:
            p *= comb(pool[code], n)
            if not p:
                break
        if p:
            out.append((cards, p / whole))
    return out


class TableReader:
    """What one seat can work out about the other hands from the plays of the round.

    Per opponent: ``kept`` (a distribution over the cards kept from their last turn), ``fresh``
    (cards drawn since, unknown) and ``style`` (how well each style has explained their turns
    this game).  It replays the round's plays turn by turn, following hand sizes and the pile from
    the deal (R5, R12), so it can be fed observations at any pace."""

    max_kept = 60

    def __init__(self) -> None:
        self.seat = -1
        self.round = 0
        self.style: dict[int, list[float]] = {}
        self.kept: dict[int, dict[tuple[str, ...], float]] = {}
        self.fresh: dict[int, int] = {}

    def _new_round(self, observation: Observation) -> None:
        self.round = observation["round"]
        self.done = 0  # plays already read
        active = observation["active"]
        self.sizes = [HAND_SIZE if a else 0 for a in active]
        self.pile = len(DECK) - HAND_SIZE * sum(active)
        self.meter, self.burdened, self.direction = 0, False, 1
        self.kept = {s: {(): 1.0} for s in range(len(active)) if active[s]}
        self.fresh = {s: HAND_SIZE for s in self.kept}

    def update(self, observation: Observation) -> None:
        """Read the plays this seat has not read yet (the turn in progress excepted)."""
        self.seat = me = observation["seat"]
        for s in range(observation["players"]):
            self.style.setdefault(s, list(STYLE_PRIOR))
        if observation["round"] != self.round:
            self._new_round(observation)
        plays = observation["plays"]
        end = len(plays)
        if observation["current"] == me and observation["play"] > 1:
            while end > self.done and plays[end - 1]["seat"] == me:
                end -= 1  # this seat's own turn is not over yet
        unseen = Counter(unseen_cards(observation))
        i = self.done
        while i < end:
            j = i
            while j < end and plays[j]["seat"] == plays[i]["seat"]:
                j += 1
            later = Counter(p["card"] for p in plays[i:] if p["seat"] != me)
            self._turn(plays[i]["seat"], plays[i:j], unseen + later)
            i = j
        self.done = end

    def _turn(self, seat: int, plays: list[dict], pool: Counter) -> None:
        """One finished turn: update the seat's beliefs, then the sizes, the pile and the meter."""
        ids = tuple(_ID[(p["card"], p.get("value"))] for p in plays)
        if seat != self.seat and seat in self.kept:
            around = (_next_size(self.sizes, seat, self.direction) or 3, _next_size(self.sizes, seat, -self.direction) or 3)
            self._read(seat, ids, pool, around)
        size = max(self.sizes[seat] - len(ids), 0)
        draw = min(HAND_SIZE - size, self.pile)
        self.sizes[seat] = size + draw
        self.pile -= draw
        if seat in self.kept:  # capped: a position set up mid-round may not follow R5's sizes
            self.fresh[seat] = min(self.fresh[seat] + draw, HAND_SIZE)
        self.meter = plays[-1]["meter"]
        self.burdened = any(ACTION_EFFECT[a] == 2 for a in ids)
        for a in ids:
            if ACTION_EFFECT[a] == 3:
                self.direction = -self.direction

    def _read(self, seat: int, ids: tuple[int, ...], pool: Counter, around: tuple[int, int]) -> None:
        """Bayes on one opponent turn: which hands (and styles) explain the plays."""
        played = [ACTION_CARD[a] for a in ids]
        draws = _draws(min(self.fresh[seat], HAND_SIZE), pool)
        prior: dict[tuple[str, ...], float] = {}
        for kept, w in self.kept[seat].items():
            for drawn, p in draws:
                rest = _minus(_sorted(kept + drawn), played)
                if rest is not None:
                    prior[rest] = prior.get(rest, 0.0) + w * p
        style = self.style[seat]
        evidence = [0.0, 0.0, 0.0]
        post: dict[tuple[str, ...], float] = {}
        for rest, w in prior.items():
            like = turn_likelihoods(rest, ids, self.meter, self.burdened, around)
            x = 0.0
            for k in range(3):
                evidence[k] += w * like[k]
                x += style[k] * like[k]
            if x:
                post[rest] = w * x
        z = sum(post.values())
        if not z:  # nothing explains the turn (a seat we misread): start afresh for this seat
            self.kept[seat] = {(): 1.0}
            self.fresh[seat] = max(self.sizes[seat] - len(ids), 0)
            return
        new = [style[k] * evidence[k] for k in range(3)]
        s = sum(new)
        self.style[seat] = [STYLE_FLOOR + (1 - 3 * STYLE_FLOOR) * x / s for x in new]
        top = sorted(post.items(), key=lambda kv: -kv[1])[: self.max_kept]
        z = sum(w for _, w in top)
        self.kept[seat] = {rest: w / z for rest, w in top}
        self.fresh[seat] = 0


# -- The searcher ---------------------------------------------------------------------------


class _NoChance(Chance):
    """Deals the next round unshuffled: a rollout stops as soon as its round ends anyway."""

    def shuffle(self, what: str, items: list[str]) -> list[str]:
        return list(items)

    def pick(self, what: str, items: list[str]) -> int:
        return 0


_NO_CHANCE = _NoChance()


# The tuned scoring's choices inside rollouts, memoised: they depend only on the key below, and a
# round played out meets the same few thousand situations again and again.
_CHOICES: dict[tuple, int] = {}


def _tuned_choice(state: ReactorState) -> int:
    """The tuned scoring's choice inside a simulated game (its index in the legal list)."""
    ids = state._ids
    if len(ids) == 1:
        return 0
    p = state.cur
    hands = state.hands
    n = state.n
    d = state.direction
    fwd = back = 0
    for step in range(1, n):
        if not fwd and hands[(p + d * step) % n]:
            fwd = len(hands[(p + d * step) % n])
        if not back and hands[(p - d * step) % n]:
            back = len(hands[(p - d * step) % n])
    m, q, k = state.meter, state.q, state.k
    pile = min(len(state.pile), 3)
    key = (state.hkey[p], m, q, k, state.pending, fwd, back, pile)
    choice = _CHOICES.get(key)
    if choice is None:
        if len(_CHOICES) > 1_000_000:
            _CHOICES.clear()
        choice = _CHOICES[key] = _best(heuristic_scores(ids, hands[p], m, q, k, state.pending, fwd, back, pile))
    return choice


def _simple_choice(state: ReactorState) -> int:
    return simple_choice(state._ids)


def rollout(state: ReactorState, me: int, movers: list) -> float:
    """Play the round out, seat ``s`` choosing with ``movers[s](state)``; score it for ``me``:
    -1 if ``me`` overloads, +1/(players in - 1) if another player does, 0 for a wash."""
    before = list(state.tokens)
    active = sum(1 for t in before if t > 0)
    rnd = state.round
    apply = state.apply
    while not state.over and state.round == rnd:
        apply(state._legal[movers[state.cur](state)])
    for s, t in enumerate(state.tokens):
        if t < before[s]:
            return -1.0 if s == me else 1.0 / (active - 1)
    return 0.0  # a wash


class ReactorStrong(Policy):
    """Hand reading plus Monte-Carlo play-outs, on top of the tuned scoring (module docstring).

    Below meter ``low`` it plays the tuned choice: nobody is near an overload yet, and searching
    there bought nothing measurable.  Above it, candidates are the moves the tuned scoring does
    not rate ``margin`` below its best.  Every candidate is played out on the same ``deals`` deals;
    the bot leaves the tuned choice only for a candidate whose mean gain over it exceeds ``z``
    standard errors.
    """

    low = 55
    deals = 60
    margin = 0.3
    z = 1.0

    def __init__(self, rng) -> None:
        super().__init__(rng)
        self.reader = TableReader()

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        assert observation is not None
        ids = [action_id(a) for a in legal]
        scores = observation_scores(observation, ids)
        if observation["meter"] < self.low:
            return legal[_best(scores)]
        top = max(scores)
        candidates = sorted((i for i in range(len(legal)) if scores[i] >= top - self.margin), key=lambda i: -scores[i])
        if len(candidates) == 1:
            return legal[candidates[0]]
        self.reader.update(observation)
        values = self.search(observation, [legal[i] for i in candidates])
        if values is None:
            return legal[candidates[0]]
        return legal[candidates[self.pick(values)]]

    def pick(self, values: list[list[float]]) -> int:
        """The candidate to play: the first (the tuned one) unless another beats it clearly."""
        base = values[0]
        d = len(base)
        best, best_gain = 0, 0.0
        for j in range(1, len(values)):
            diffs = [v - w for v, w in zip(values[j], base)]
            mean = sum(diffs) / d
            if mean <= best_gain:
                continue
            var = sum((x - mean) ** 2 for x in diffs) / (d - 1) if d > 1 else 0.0
            if mean > self.z * (var / d) ** 0.5:
                best, best_gain = j, mean
        return best

    def beliefs(self, observation: Observation, unseen: list[str]) -> list[tuple[int, list, list[float]]]:
        """Per opponent with a read hand: (seat, the kept-card sets still possible, their
        cumulative weights)."""
        me = observation["seat"]
        sizes = observation["hand_sizes"]
        pool = Counter(unseen)
        out = []
        for seat, beliefs in self.reader.kept.items():
            if seat == me or not sizes[seat] or len(beliefs) == 1 and () in beliefs:
                continue
            options, ways = [], []
            for kept, w in beliefs.items():
                if len(kept) > sizes[seat]:
                    continue
                if w > 0 and all(pool[code] >= k for code, k in Counter(kept).items()):
                    options.append(kept)
                    ways.append(w)
            if options:
                out.append((seat, options, list(accumulate(ways))))
        return out

    def deal(self, observation: Observation, unseen: list[str], beliefs: list) -> tuple[list[list[str]], list[str]]:
        """One random deal of the unseen cards from the reader's beliefs: every hand and the pile."""
        rng = self.rng
        me = observation["seat"]
        sizes = observation["hand_sizes"]
        pool = Counter(unseen)
        hands: list[list[str]] = [[] for _ in sizes]
        hands[me] = list(observation["hand"])
        for seat, options, cum in beliefs:
            for _ in range(4):  # two seats' sets may compete for the same last copies: draw again
                kept = rng.choices(options, cum_weights=cum)[0]
                if all(pool[c] >= n for c, n in Counter(kept).items()):
                    hands[seat] = list(kept)
                    pool.subtract(kept)
                    break
        rest = [c for c in CODES for _ in range(pool[c])]
        rng.shuffle(rest)
        pos = 0
        for s, size in enumerate(sizes):
            if s != me and len(hands[s]) < size:
                take = size - len(hands[s])
                hands[s] += rest[pos:pos + take]
                pos += take
        return hands, rest[pos:pos + observation["pile"]]

    def movers(self, observation: Observation) -> list:
        """Per seat, the move function of one rollout: opponents in a style drawn from what the
        reader learned of them, this seat with the tuned scoring."""
        rng = self.rng
        out = []
        for s in range(observation["players"]):
            if s == observation["seat"]:
                out.append(_tuned_choice)
                continue
            style = rng.choices((SIMPLE, TUNED, RANDOM), self.reader.style.get(s, STYLE_PRIOR))[0]
            if style == SIMPLE:
                out.append(_simple_choice)
            elif style == TUNED:
                out.append(_tuned_choice)
            else:
                out.append(lambda state: rng.randrange(len(state._ids)))
        return out

    def search(self, observation: Observation, actions: list[Action]) -> list[list[float]] | None:
        """Per action, its rollout values over the same random deals (None if the observation
        does not allow a deal)."""
        me = observation["seat"]
        n = observation["players"]
        sizes = observation["hand_sizes"]
        unseen = unseen_cards(observation)
        if sum(sizes[s] for s in range(n) if s != me) + observation["pile"] > len(unseen):
            return None  # an inconsistent observation: fall back on the tuned scoring
        config = GameConfig(players=n)
        beliefs = self.beliefs(observation, unseen)
        values: list[list[float]] = [[] for _ in actions]
        for _ in range(self.deals):
            hands, pile = self.deal(observation, unseen, beliefs)
            movers = self.movers(observation)
            base = ReactorState.from_position(
                config, hands, pile, chance=_NO_CHANCE, meter=observation["meter"], current=me,
                required=observation["required"], bonus=observation["bonus"], play=observation["play"],
                direction=observation["direction"], pending=observation["pending"], tokens=observation["tokens"],
                eliminated=observation["eliminated"], round=observation["round"], starter=observation["starter"],
            )
            for j, action in enumerate(actions):
                state = base.clone()
                state.apply(action)
                values[j].append(rollout(state, me, movers))
        return values


POLICIES = {"heuristic": ReactorHeuristic, "strong": ReactorStrong, "tuned": ReactorTuned}
