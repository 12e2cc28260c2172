"""Reactor policies: a one-ply heuristic, and a card-counting Monte-Carlo searcher built on it.

Both see only what a bot sees: the observation and the legal actions (``seeds/reactor.md`` A.5).

- ``heuristic`` scores each legal play by the pressure it puts on the next player (the chance
  that they hold nothing playable at the new meter, from the deck's make-up) minus what the
  card is worth to keep: lifelines (``VS FR RL PB RP CB``) and Sparks are kept for when nothing
  else fits, big numbers are dumped while they still fit.  Under a Pass the Buck it never makes a
  first play that leaves nothing for the second.
- ``strong`` counts cards (the unseen ones are the deck minus this round's plays and its own
  hand), deals the other hands and the pile at random from them many times, and plays each
  candidate action out to the end of the round with the heuristic in every seat, on the same
  deals.  Its own overload scores -1, another player's +1/(players in - 1), a wash 0.
"""

from __future__ import annotations

import random
from collections import Counter

from arena.games.base import Action, GameConfig, Observation
from arena.games.chance import Chance
from arena.games.reactor import (
    ACTION_CARD,
    ACTION_EFFECT,
    ACTION_METER,
    CODE_ACTIONS,
    CODES,
    COUNTS,
    DECK,
    HAND_SIZE,
    MAX_METER,
    STOP_ID,
    ReactorState,
)
from arena.policies import Policy

# -- Tables shared by both policies ---------------------------------------------------------

_ID: dict[tuple[str, int | None], int] = {
    (card, 1 if card == "S" and a == 0 else 11 if card == "S" else None): a
    for a, card in enumerate(ACTION_CARD)
}


def action_id(action: Action) -> int:
    """The engine's number of a legal action (STOP included)."""
    if action.get("type") == "stop":
        return STOP_ID
    return _ID[(action["card"], action.get("value"))]


# What a card is worth to keep, i.e. the cost of spending it now.  Lifelines can always be
# played (a hand with one cannot overload, R9) and the meter-lowering ones also rescue the next
# turns; a Spark fits up to 98; small numbers fit later than big ones, and a 10 is a liability.
_KEEP_CODE = {
    "S": 0.14, "4": 0.06, "5": 0.05, "6": 0.04, "7": 0.03, "OC": 0.03, "8": 0.02, "9": 0.01, "10": 0.0,
    "VS": 0.28, "FR": 0.30, "RL": 0.30, "PB": 0.22, "RP": 0.18, "CB": 0.16,
}
KEEP: list[float] = [_KEEP_CODE[card] for card in ACTION_CARD] + [0.0]
# A Spark declared 11 fits less often later only in the sense of the meter it leaves; the card
# itself is the same, so both declarations share its keep value.
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
    """The heuristic's knobs."""

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
    """A score per legal action id (higher is better) for the player to move."""
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


def _best(scores: list[float]) -> int:
    """The index of the highest score; the first one on ties."""
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best


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
    """Heuristic scores of the legal action ids, from the observation alone."""
    sizes = observation["hand_sizes"]
    seat, direction = observation["seat"], observation["direction"]
    return heuristic_scores(
        ids, observation["hand"], observation["meter"], observation["required"], observation["play"],
        observation["pending"], _next_size(sizes, seat, direction), _next_size(sizes, seat, -direction),
        observation["pile"], P,
    )


class ReactorHeuristic(Policy):
    """One ply: pressure the next player, keep lifelines and small cards, dump big numbers."""

    params = Params

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        assert observation is not None
        return legal[_best(observation_scores(observation, [action_id(a) for a in legal], self.params))]


# -- The searcher ---------------------------------------------------------------------------


class _NoChance(Chance):
    """Deals the next round unshuffled: a rollout stops as soon as its round ends anyway."""

    def shuffle(self, what: str, items: list[str]) -> list[str]:
        return list(items)

    def pick(self, what: str, items: list[str]) -> int:
        return 0


_NO_CHANCE = _NoChance()


# The rollout policy's choices, memoised: they depend only on the key below, and a round played
# out by the heuristic meets the same few thousand situations again and again.
_CHOICES: dict[tuple, int] = {}


def _sim_choice(state: ReactorState, P: type[Params] = Params) -> int:
    """The heuristic's choice inside a simulated game (its index in the legal list)."""
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
    key = (P, state.hkey[p], m, q, k, state.pending, fwd, back, pile)
    choice = _CHOICES.get(key)
    if choice is None:
        if len(_CHOICES) > 1_000_000:
            _CHOICES.clear()
        choice = _CHOICES[key] = _best(heuristic_scores(ids, hands[p], m, q, k, state.pending, fwd, back, pile, P))
    return choice


def rollout(state: ReactorState, me: int, P: type[Params] = Params) -> float:
    """Play the round out with the heuristic everywhere; score it for seat ``me``: -1 if ``me``
    overloads, +1/(players in - 1) if another player does, 0 for a wash."""
    before = list(state.tokens)
    active = sum(1 for t in before if t > 0)
    rnd = state.round
    apply = state.apply
    while not state.over and state.round == rnd:
        apply(state._legal[_sim_choice(state, P)])
    for s, t in enumerate(state.tokens):
        if t < before[s]:
            return -1.0 if s == me else 1.0 / (active - 1)
    return 0.0  # a wash


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


# How much likelier a card of each code is to sit in a hand than in the pile, measured in games of
# the heuristic against itself: sensible players keep lifelines and get rid of big numbers.
HOLD_WEIGHT: dict[str, float] = {
    "S": 1.2, "4": 1.1, "5": 1.0, "6": 0.8, "7": 0.7, "OC": 0.8, "8": 0.65, "9": 0.6, "10": 0.5,
    "VS": 1.8, "FR": 1.8, "RL": 1.3, "PB": 1.3, "RP": 1.4, "CB": 1.2,
}


def _legal_ids(hand: list[str], m: int, optional: bool) -> list[int]:
    """The legal action ids of a hand at meter ``m``, in the engine's order."""
    ids = sorted(a for code in set(hand) for a in CODE_ACTIONS[code] if ACTION_METER[a][m] >= 0)
    if ids and optional:
        ids.append(STOP_ID)
    return ids


def _turns(plays: list[dict]) -> list[tuple[int, int, bool, list[int]]]:
    """This round's plays grouped into turns: (seat, meter before, owed two plays, action ids)."""
    turns: list[tuple[int, int, bool, list[int]]] = []
    meter, burdened = 0, False
    for play in plays:
        a = _ID[(play["card"], play.get("value"))]
        if turns and turns[-1][0] == play["seat"]:
            turns[-1][3].append(a)
        else:
            if turns:
                burdened = any(ACTION_EFFECT[x] == 2 for x in turns[-1][3])
            turns.append((play["seat"], meter, burdened, [a]))
        meter = play["meter"]
    return turns


_CONSISTENT: dict[tuple, bool] = {}


def consistent(kept: tuple[str, ...], m0: int, burdened: bool, ids: tuple[int, ...], sizes: tuple[int, int],
               P: type[Params] = Params) -> bool:
    """Would the heuristic, holding ``kept`` plus the cards it played, have made exactly this turn?

    ``ids`` are the turn's plays from meter ``m0``; ``sizes`` the next players' hand sizes then.
    A turn that ends while an optional play was still possible must also be one the heuristic
    stops (R11)."""
    key = (P, kept, m0, burdened, ids, sizes)
    known = _CONSISTENT.get(key)
    if known is not None:
        return known
    if len(_CONSISTENT) > 500_000:
        _CONSISTENT.clear()
    hand = list(kept) + [ACTION_CARD[a] for a in ids]
    m, q, b, k, pending, flipped = m0, 2 if burdened else 1, 0, 1, False, False
    ok = True
    for a in (*ids, STOP_ID):
        legal = _legal_ids(hand, m, k > q)
        if not legal or k > q + b:
            ok = a == STOP_ID  # the turn had to end here
            break
        fwd, back = sizes[::-1] if flipped else sizes
        choice = legal[_best(heuristic_scores(legal, hand, m, q, k, pending, fwd, back, 3, P))]
        if choice != a:
            ok = False
            break
        if a == STOP_ID:
            break
        hand.remove(ACTION_CARD[a])
        m = ACTION_METER[a][m]
        effect = ACTION_EFFECT[a]
        b += effect == 1
        pending = pending or effect == 2
        flipped = flipped != (effect == 3)
        k += 1
    _CONSISTENT[key] = ok
    return ok


def _multisets(codes: list[str], size: int) -> list[tuple[str, ...]]:
    """The multisets of ``size`` codes (size 1 or 2) in code order."""
    if size == 1:
        return [(c,) for c in codes]
    return [(codes[i], codes[j]) for i in range(len(codes)) for j in range(i, len(codes))]


class ReactorStrong(Policy):
    """Determinized Monte-Carlo search over the heuristic, with card counting and hand reading.

    Candidates are the actions the heuristic does not rate ``margin`` below its best.  Each deal
    of the unseen cards gives every opponent a hand that explains their last turn (the cards
    they kept are ones with which the heuristic would have played just as they did; the cards
    they drew since are random), and the pile is the rest in random order.  Every candidate is
    played out on the same ``deals`` deals; the bot leaves the heuristic's choice only for a
    candidate whose mean gain over it exceeds ``z`` standard errors.
    """

    deals = 24
    margin = 0.12
    z = 1.0
    kept_power = 1.0  # exponent of HOLD_WEIGHT for kept cards (0: uniform)
    read_hands = True
    params: type[Params] = Params

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        assert observation is not None
        ids = [action_id(a) for a in legal]
        scores = observation_scores(observation, ids, self.params)
        top = max(scores)
        candidates = sorted((i for i in range(len(legal)) if scores[i] >= top - self.margin), key=lambda i: -scores[i])
        if len(candidates) == 1:
            return legal[candidates[0]]
        values = self.search(observation, [legal[i] for i in candidates])
        if values is None:
            return legal[candidates[0]]
        return legal[candidates[self.pick(values)]]

    def pick(self, values: list[list[float]]) -> int:
        """The candidate to play: the first (the heuristic's) unless another beats it clearly."""
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

    def hand_models(self, observation: Observation, pool: Counter) -> list[tuple[int, int, list[tuple], list[float]]]:
        """Per opponent whose last turn this round is known: (seat, cards kept, the kept multisets
        that explain that turn, their prior weights)."""
        me = observation["seat"]
        n = observation["players"]
        sizes = observation["hand_sizes"]
        last: dict[int, tuple[int, int, bool, list[int]]] = {}
        for turn in _turns(observation["plays"]):
            last[turn[0]] = turn
        models = []
        codes = [c for c in CODES if pool[c] > 0]
        for seat, (_, m0, burdened, ids) in sorted(last.items()):
            if seat == me or not sizes[seat]:
                continue
            kept = min(sizes[seat], HAND_SIZE - len(ids))
            if kept <= 0:
                continue
            d = observation["direction"]
            around = (_next_size(sizes, seat, d) or 3, _next_size(sizes, seat, -d) or 3)
            options, weights = [], []
            for combo in _multisets(codes, kept):
                if consistent(combo, m0, burdened, tuple(ids), around, self.params):
                    w = 1.0
                    for c in combo:
                        w *= HOLD_WEIGHT[c] ** self.kept_power
                    options.append(combo)
                    weights.append(w)
            if options:
                models.append((seat, kept, options, weights))
        return models

    def deal(self, observation: Observation, unseen: list[str], models: list) -> tuple[list[list[str]], list[str]]:
        """One random deal of the unseen cards: every hand (this seat's as it is) and the pile."""
        rng = self.rng
        me = observation["seat"]
        sizes = observation["hand_sizes"]
        pool = Counter(unseen)
        hands: list[list[str]] = [[] for _ in sizes]
        hands[me] = list(observation["hand"])
        for seat, kept, options, weights in models:
            # Weight each explanation by how many ways the remaining cards allow it.
            ways = []
            for combo, w in zip(options, weights):
                if len(combo) == 2 and combo[0] == combo[1]:
                    w *= pool[combo[0]] * (pool[combo[0]] - 1)
                else:
                    for c in combo:
                        w *= pool[c]
                ways.append(w)
            if sum(ways) <= 0:
                continue
            combo = rng.choices(options, ways)[0]
            hands[seat] = list(combo)
            pool.subtract(combo)
        rest = [c for c in CODES for _ in range(pool[c])]
        rng.shuffle(rest)
        pos = 0
        for s, size in enumerate(sizes):
            if s != me and len(hands[s]) < size:
                take = size - len(hands[s])
                hands[s] += rest[pos:pos + take]
                pos += take
        return hands, rest[pos:pos + observation["pile"]]

    def search(self, observation: Observation, actions: list[Action]) -> list[list[float]] | None:
        """Per action, its rollout values over the same random deals (None if the observation
        does not allow a deal)."""
        me = observation["seat"]
        n = observation["players"]
        sizes = observation["hand_sizes"]
        unseen = unseen_cards(observation)
        if sum(sizes[s] for s in range(n) if s != me) + observation["pile"] > len(unseen):
            return None  # an inconsistent observation: fall back on the heuristic
        models = self.hand_models(observation, Counter(unseen)) if self.read_hands else []
        config = GameConfig(players=n)
        values: list[list[float]] = [[] for _ in actions]
        for _ in range(self.deals):
            hands, pile = self.deal(observation, unseen, models)
            base = ReactorState.from_position(
                config, hands, pile, chance=_NO_CHANCE, meter=observation["meter"], current=me,
                required=observation["required"], bonus=observation["bonus"], play=observation["play"],
                direction=observation["direction"], pending=observation["pending"], tokens=observation["tokens"],
                eliminated=observation["eliminated"], round=observation["round"], starter=observation["starter"],
            )
            for j, action in enumerate(actions):
                state = base.clone()
                state.apply(action)
                values[j].append(rollout(state, me, self.params))
        return values


POLICIES = {"heuristic": ReactorHeuristic, "strong": ReactorStrong}
