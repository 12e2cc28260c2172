"""Powder Keg policies: a rule-based heuristic, and a card-counting Monte-Carlo searcher built on it.

Both see only what a bot sees (``seeds/powder-keg.md`` section 5): the observation and the legal
actions.  Neither gets the event history in-process, so each keeps a :class:`Memory` of what it can
work out from one observation to the next: where its own reinserted Kings lie, where an opponent's
freshly reinserted King probably lies (top-heavy prior, washed out by every safe draw after it),
and that a Shuffle voids all of it.  A bot program may call ``observe_events(events)`` before each
``act`` with the events of the request (``bots/keg_*.py`` do); the memory is then exact: its own
Peeks, its own insertion index, who doused.  Without it the policies still work, on estimates.

- ``heuristic`` plays by rules: steal with spare pairs, triples and Favours, take a bucket with
  five-different, draw when the King risk of the top card is low, otherwise Skip, Double or
  Shuffle (or Peek first when it can see the result); a doused King goes on top when the next
  player probably has no bucket, else to the first player likely without one; Veto what is aimed
  at it; give away the least valuable card.
- ``strong`` counts cards (the unseen ones are the deck minus its hand, the discard pile and the
  cards out of the game), deals them at random into the other hands and the pile many times -- the
  Kings placed by the memory's position estimates, the buckets by who probably still holds one --
  and plays each candidate action out with :func:`KegState.from_position` and the heuristic in
  every seat (common random numbers across candidates).  The score of a playout is the place the
  bot finishes in.  It searches the play phase (KD1) and the King's reinsertion (KD4); vetoes,
  gifts and takes follow the heuristic.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from arena.games.base import Action, Event, GameConfig, Observation
from arena.games.chance import SeededChance
from arena.games.powder_keg import (
    BK,
    CODES,
    DRAW,
    FAVOUR,
    FAVOUR_ACTION,
    FIVE,
    FIVE_DIFFERENT,
    GIVE,
    INDEX,
    INSERT,
    KD1,
    KD2,
    KD3,
    KD4,
    PAIR,
    PASS,
    PEEK,
    SHUFFLE,
    SINGLE,
    SKIP,
    TAKE,
    TRIPLE,
    VETO,
    J,
    K,
    KegState,
    Q,
)
from arena.policies import Policy

# -- Card values and the rules shared by the heuristic and the playouts --------------------------------------

# What a card is worth to keep (by type index, K first).  A bucket is a life; Double and Skip dodge a
# draw; a Veto answers a steal; Shuffle and Favour are weaker; plain cards are only pair material.
VALUE: list[float] = [0.0, 10.0, 3.0, 4.0, 3.5, 2.0, 2.5, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5]
PLAIN = (8, 9, 10, 11, 12)  # the types 6 5 4 3 2
# Types a pair may be made of without wasting an action card (a Peek is worth little blind).
PAIR_TYPES = (8, 9, 10, 11, 12, PEEK)
FRESH_P = 0.5  # prior that an opponent's reinserted King went on top (for the next player)


def bucket_guess(sizes: list[int], active: list[int], me: int, unseen_bk: float, pile_plain: int,
                 credits: list[float] | None = None) -> list[float]:
    """Expected buckets in each other active hand.  ``credits`` are buckets known to be held (the one
    dealt, minus douses); the rest of the unseen buckets is spread by hand size, hands weighted up a
    little since every hand was dealt one."""
    guess = [0.0] * len(sizes)
    others = [s for s in active if s != me]
    if credits is None:
        weight = {s: sizes[s] + 2.0 for s in others if sizes[s]}
        held = 0.0
    else:
        weight = {s: float(sizes[s]) for s in others if sizes[s]}
        held = 0.0
        for s in others:
            c = min(credits[s], sizes[s])
            guess[s] = c
            held += c
    spare = max(unseen_bk - held, 0.0)
    total = sum(weight.values()) + pile_plain
    if total > 0:
        for s, w in weight.items():
            guess[s] = min(guess[s] + spare * w / total, float(sizes[s]))
    return guess


def _five_combo(h: list[int]) -> tuple[int, ...] | None:
    """The cheapest five different types to spend (never a bucket), or None."""
    held = sorted((VALUE[t], t) for t in range(2, 13) if h[t])
    if len(held) < 5 or sum(v for v, _ in held[:5]) > 7.0:
        return None
    return tuple(sorted(t for _, t in held[:5]))


@dataclass(frozen=True, slots=True)
class Rules:
    """The heuristic's thresholds (dangers are chances of drawing a King, weighted by ``bucket_cost``
    when a bucket is held)."""

    bucket_cost: float = 0.3  # a King drawn with a bucket costs the bucket, not the game
    avoid_at: tuple[float, ...] = (9.9, 0.30, 0.22, 0.15)  # dodge above this danger, by dodge cards held
    hot_at: float = 0.3  # a top King this likely (and 1.5 times the blind risk) is dodged even with a bucket
    double_owed: float = 0.05  # danger above which a Double hands owed turns on
    peek_at: float = 0.1  # risk above which a Peek is played (when its result is seen)
    peek_spare: bool = False  # keep a pair of Peeks for a steal
    triple_at: float = 0.6  # expected buckets of the target for a triple naming a bucket
    shuffle_at: float = 0.2  # danger above which a likely top King is shuffled away
    victim_at: float = 0.5  # expected buckets below which a player is worth aiming a King at
    pair_types: tuple[int, ...] = PAIR_TYPES  # types spent in pairs to steal
    favour_by_size: bool = True  # a Favour asks the biggest hand (else the likeliest bucket holder)
    veto_any_steal: bool = False  # veto every pair aimed at me, not only when I hold a bucket
    veto_skip: bool = False  # veto the Skip of the player before me (make them draw)
    reveto_steal: bool = False  # answer a Veto of my own pair with another


HEURISTIC_RULES = Rules()


def kd1_plan(h: list[int], targets: list[int], sizes: list[int], T: int, risk: float, uniform: float,
             bk: list[float], five_ok: bool, peek_ok: bool, rules: Rules = HEURISTIC_RULES) -> Action:
    """The heuristic's play-phase choice.  ``targets`` are the other active seats clockwise from the
    player (the next player first); ``risk`` the chance the top card is a King, ``uniform`` the same
    without any positional knowledge; ``bk`` expected buckets per seat; ``five_ok``: five-different
    is on and a bucket lies on the discard pile; ``peek_ok``: a Peek's result would be seen."""
    mine = h[BK]
    peek_pair = not peek_ok or (rules.peek_spare and h[PEEK] >= 2)
    # 1. A bucket back from the discard pile.
    if five_ok and mine <= 1:
        combo = _five_combo(h)
        if combo is not None:
            return FIVE[combo]
    # 2. Steal with cards good for nothing else.
    live = [s for s in targets if sizes[s]]
    if live:
        rich = max(live, key=lambda s: (bk[s] / sizes[s], sizes[s]))
        if mine <= 1 and bk[rich] >= rules.triple_at:
            for t in rules.pair_types:
                if h[t] >= 3 and (t != PEEK or peek_pair):
                    return TRIPLE[t, max(live, key=lambda s: (bk[s], sizes[s])), BK]
        for t in rules.pair_types:
            if h[t] >= 2 and (t != PEEK or peek_pair):
                return PAIR[t, rich]
        if h[FAVOUR]:
            if rules.favour_by_size:
                return FAVOUR_ACTION[max(live, key=lambda s: (sizes[s], bk[s]))]
            return FAVOUR_ACTION[max(live, key=lambda s: (bk[s], sizes[s]))]
    # 3. Draw, or dodge the draw.
    danger = risk * rules.bucket_cost if mine else risk
    dodges = h[J] + h[SKIP]
    if T >= 2 and h[J] and danger > rules.double_owed:
        return SINGLE[J]
    hot = risk > max(rules.hot_at, 1.5 * uniform)  # a King probably on top: dodge it, leave it to the next
    if hot and dodges:
        return SINGLE[SKIP] if h[SKIP] and (T == 1 or not h[J]) else SINGLE[J]
    if peek_ok and h[PEEK] and rules.peek_at < risk < 0.99:
        return SINGLE[PEEK]
    if danger > rules.avoid_at[min(dodges, 3)]:
        if hot and h[SHUFFLE] and not dodges:
            return SINGLE[SHUFFLE]
        if h[SKIP] and (T == 1 or not h[J]):
            return SINGLE[SKIP]
        if h[J]:
            return SINGLE[J]
    if h[SHUFFLE] and hot and danger > rules.shuffle_at:
        return SINGLE[SHUFFLE]
    return DRAW


def insert_plan(size: int, T: int, targets: list[int], bk: list[float], rules: Rules = HEURISTIC_RULES) -> int:
    """Where the heuristic puts a doused King back (0 = top, ``size`` = bottom)."""
    owed = T - 1  # turns still owed after this one: the player's own next draws come first
    if owed:
        return min(owed, size)
    if len(targets) == 1:
        return 0 if bk[targets[0]] < rules.victim_at else size
    for k, s in enumerate(targets[:size + 1]):
        if bk[s] < rules.victim_at:
            return k
    return 0  # every one holds a bucket: cost the next player theirs


def veto_plan(h: list[int], me: int, author: int, play: str, card: int, target: int | None, name: int,
              vetoes: int, victim: int, rules: Rules = HEURISTIC_RULES) -> bool:
    """Whether to add a Veto to an open chain.  ``author`` made the original play, ``card`` is its
    type, ``victim`` the player a Double would hand its turns to."""
    effective = vetoes % 2 == 0
    if author == me:  # my own play was cancelled: restore it if it mattered
        return not effective and (play == "five" or (play == "single" and card in (J, SKIP))
                                  or (play == "triple" and name == BK) or (rules.reveto_steal and play == "pair"))
    if not effective:
        return False
    if play == "five":
        return True
    if target == me:
        if play == "triple":
            return h[name] > 0 and VALUE[name] >= 2.5
        if play == "pair":
            return h[BK] > 0 or rules.veto_any_steal
        if play == "favour":
            return all(VALUE[t] >= 2.5 for t in range(1, 13) if h[t])
    if play == "single" and victim == me:
        return card == J or (card == SKIP and rules.veto_skip)
    return False


def give_plan(h: list[int]) -> int:
    """The type the heuristic hands over to a Favour: the least valuable, a broken pair costing more."""
    return min((t for t in range(1, 13) if h[t]),
               key=lambda t: (VALUE[t] + (0.6 if t in PLAIN and h[t] == 2 else 0.0), -t))


def take_plan(dcount: list[int]) -> int:
    """The type taken from the discard pile after a five-different."""
    return max((t for t in range(1, 13) if dcount[t]), key=lambda t: VALUE[t])


def _choose(legal: list[Action], action: Action) -> Action:
    """``action`` as it appears in ``legal`` (the very object), or the first legal action."""
    try:
        return legal[legal.index(action)]
    except ValueError:  # pragma: no cover - the plans only build legal actions
        return legal[0]


def _clockwise(active: list[int], seat: int, n: int) -> list[int]:
    """The other active seats in turn order after ``seat``."""
    return [(seat + k) % n for k in range(1, n) if (seat + k) % n in active]


# -- Memory: what a seat can know about the draw pile -----------------------------------------------------------


class _King:
    """A King whose place in the pile is partly known: a distribution over positions (top first) under
    each opponent model -- ``d1`` if its inserter plays sensibly (aims it), ``d0`` if it inserts at
    random -- and who put it back (``owner``: a seat, -1 for this seat, None if not known)."""

    __slots__ = ("d1", "d0", "owner")

    def __init__(self, d1: list[float], d0: list[float], owner: int | None) -> None:
        self.d1, self.d0, self.owner = d1, d0, owner


def _condition(d: list[float]) -> list[float] | None:
    """``d`` after a card that was not this King left the top: position 0 ruled out, the rest moved up."""
    rest = d[1:]
    mass = sum(rest)
    return [x / mass for x in rest] if mass > 1e-12 else None


def _resize(d: list[float], size: int) -> list[float] | None:
    if len(d) == size:
        return d
    d = (d + [0.0] * size)[:size]
    mass = sum(d)
    return [x / mass for x in d] if mass > 1e-12 else None


def _poisson3(mean: float) -> list[float]:
    """P(0), P(1), P(2 or more) of a Poisson count."""
    import math

    p0 = math.exp(-mean)
    p1 = p0 * mean
    return [p0, p1, max(1.0 - p0 - p1, 0.0)]


class Memory:
    """Position knowledge about the draw pile, kept between one seat's decisions.

    ``kings`` are the tracked Kings (:class:`_King`): the ones this seat put back (exact), and the ones
    opponents put back -- under the sensible model a prior with weight ``fresh`` on where the
    heuristic would aim it (the top when ``model`` is off), under the random model uniform.
    ``sensible[s]`` is the belief that seat ``s`` aims its Kings; with ``learn`` on it is updated by
    Bayes' rule every time the top card of the pile is seen to be a King or not.  ``top`` holds the
    cards seen by a Peek, top first.  Fed with events every step is exact; otherwise
    :meth:`observe` reconstructs the steps from two observations in a row.
    """

    def __init__(self, fresh: float = FRESH_P, model: bool = False, learn: bool = False,
                 prior: float = 1.0) -> None:
        self.fresh = fresh
        self.model = model  # predict where an opponent aims a King (else: the top)
        self.learn = learn
        self.prior = prior
        self.reset(None)

    def reset(self, obs: Observation | None) -> None:
        n = obs["players"] if obs else 5
        self.players = n
        self.fed = False
        self.kings: list[_King] = []
        self.top: list[str] = []
        self.credits = [1.0] * n
        self.sensible = [self.prior] * n
        self.started = obs is not None
        self.pile = obs["pile"] if obs else 0
        self.starter = obs["starter"] if obs else -1
        self.discard: list[str] = list(obs["discard"]) if obs else []
        self.sizes: list[int] = list(obs["hand_sizes"]) if obs else [0] * n
        self.forfeited = len(obs["forfeited"]) if obs else 0
        self.in_pile = obs["kings"] if obs else 0  # Kings in the pile (kept up by the events)
        self.view: Observation | None = obs  # the latest observation
        self.owed = [1] * n  # T of each seat's latest turn (events)

    # -- beliefs ---------------------------------------------------------------------------------------------

    def weight(self, owner: int | None) -> float:
        """The belief that the King's inserter aimed it (1 for this seat's own Kings)."""
        if owner == -1:
            return 1.0
        if owner is None or owner >= len(self.sensible):
            return sum(self.sensible) / max(len(self.sensible), 1)
        return self.sensible[owner]

    def at_top(self, king: _King) -> float:
        w = self.weight(king.owner)
        return w * king.d1[0] + (1.0 - w) * king.d0[0] if king.d1 else 0.0

    def _evidence(self, was_king: bool, kings_before: int, pile_before: int) -> None:
        """Bayes' rule on each inserter's model from what the top card turned out to be."""
        if not self.learn:
            return
        loose = max(kings_before - len(self.kings), 0) / max(pile_before - len(self.kings), 1)
        for k in self.kings:
            if k.owner is None or k.owner < 0 or not k.d1:
                continue
            q1, q0 = k.d1[0], k.d0[0]
            if was_king:
                l1 = 1.0 - (1.0 - q1) * (1.0 - loose)
                l0 = 1.0 - (1.0 - q0) * (1.0 - loose)
            else:
                l1, l0 = 1.0 - q1, 1.0 - q0
            w = self.sensible[k.owner]
            post = w * l1 / max(w * l1 + (1.0 - w) * l0, 1e-12)
            self.sensible[k.owner] = min(max(post, 0.03), 0.97)

    # -- elementary steps ----------------------------------------------------------------------------------

    def _move_up(self) -> None:
        kept = []
        for k in self.kings:
            d1, d0 = _condition(k.d1), _condition(k.d0)
            if d1 is None and d0 is None:
                continue
            kept.append(_King(d1 or d0, d0 or d1, k.owner))
        self.kings = kept

    def plain_draw(self, kings_before: int, pile_before: int) -> None:
        """A card that was not a King left the top."""
        self._evidence(False, kings_before, pile_before)
        self._move_up()
        if self.top:
            if self.top[0] == "K":
                self.top = []
            else:
                del self.top[0]

    def king_draw(self, kings_before: int, pile_before: int) -> None:
        """A King left the top (doused or not)."""
        if self.top:
            if self.top[0] != "K":
                self.top = []
            else:
                del self.top[0]
        self._evidence(True, kings_before, pile_before)
        if self.kings:
            tops = [self.at_top(k) for k in self.kings]
            loose = max(kings_before - len(self.kings), 0) / max(pile_before, 1)
            best = max(range(len(tops)), key=tops.__getitem__)
            if tops[best] > 0.5 * (sum(tops) + loose):
                del self.kings[best]
        self._move_up()

    def insert_mine(self, index: int, size: int) -> None:
        """This seat put a King back at ``index`` of a pile of ``size`` cards."""
        self.fit(size)
        for k in self.kings:
            k.d1.insert(index, 0.0)
            k.d0.insert(index, 0.0)
        d = [0.0] * (size + 1)
        d[index] = 1.0
        self.kings.append(_King(d, list(d), -1))
        if index < len(self.top):
            self.top.insert(index, "K")
        elif index == len(self.top) and self.top:
            self.top.append("K")

    def insert_other(self, size: int, seat: int | None = None, T: int = 1) -> None:
        """Seat ``seat`` (another one, or not known) put a King back somewhere in a pile of ``size`` cards."""
        self.fit(size)
        uniform = [1.0 / (size + 1)] * (size + 1)
        aimed = [(1.0 - self.fresh) / (size + 1)] * (size + 1)
        for index, p in self._aims(seat, size, T):
            aimed[index] += self.fresh * p
        w = self.weight(seat)
        mixed = [w * a + (1.0 - w) * u for a, u in zip(aimed, uniform)]
        below = []  # P(insert index <= j)
        acc = 0.0
        for x in mixed:
            acc += x
            below.append(acc)
        for k in self.kings:
            for name in ("d1", "d0"):
                d = getattr(k, name)
                new = [0.0] * (size + 1)
                for j, x in enumerate(d):
                    new[j] += x * (1.0 - below[j])
                    new[j + 1] += x * below[j]
                setattr(k, name, new)
        self.kings.append(_King(aimed, uniform, seat))
        self.top = []

    def _aims(self, seat: int | None, size: int, T: int) -> list[tuple[int, float]]:
        """Where a sensible player in ``seat`` would put a King back, with probabilities: the heuristic's
        own rule, seen with this seat's estimate of what that player believes (its own buckets unknown)."""
        obs = self.view
        if not self.model or seat is None or obs is None or seat not in obs["active"]:
            return [(0, 1.0)]
        n = obs["players"]
        credits = self.credits if self.fed and len(self.credits) == n else None
        unseen_bk = unseen_counts(obs)[BK]
        guess = bucket_guess(obs["hand_sizes"], obs["active"], obs["seat"], unseen_bk,
                             obs["pile"] - obs["kings"], credits)
        own = hand_counts(obs)[BK]
        targets = _clockwise(obs["active"], seat, n)
        out: dict[int, float] = {}
        for b, p in enumerate(_poisson3(min(guess[seat], 2.0) if credits else 0.3)):
            theirs = bucket_guess(obs["hand_sizes"], obs["active"], seat, unseen_bk + own - b,
                                  obs["pile"] - obs["kings"], credits)
            index = min(insert_plan(size, T, targets, theirs), size)
            out[index] = out.get(index, 0.0) + p
        return list(out.items())

    def shuffle(self) -> None:
        self.kings, self.top = [], []

    def fit(self, size: int, kings: int | None = None) -> None:
        """Make the tracked distributions agree with a pile of ``size`` cards holding ``kings`` Kings."""
        kept = []
        for k in self.kings:
            d1, d0 = _resize(k.d1, size), _resize(k.d0, size)
            if d1 is None and d0 is None:
                continue
            kept.append(_King(d1 or d0, d0 or d1, k.owner))
        self.kings = kept
        if kings is not None:
            while len(self.kings) > kings:
                # too many: forget an opponent's King first, the oldest first
                drop = next((i for i, k in enumerate(self.kings) if k.owner != -1), 0)
                del self.kings[drop]
        del self.top[size:]

    # -- what the seat concludes ------------------------------------------------------------------------------

    def top_risk(self, pile: int, kings: int) -> float:
        """The chance that the top card is a King."""
        if pile <= 0 or kings <= 0:
            return 0.0
        if self.top:
            return 1.0 if self.top[0] == "K" else 0.0
        safe = 1.0
        for k in self.kings:
            safe *= 1.0 - self.at_top(k)
        loose = max(kings - len(self.kings), 0)
        safe *= 1.0 - loose / max(pile - len(self.kings), 1)
        return min(max(1.0 - safe, 0.0), 1.0)

    # -- updates --------------------------------------------------------------------------------------------

    def feed(self, events: list[Event], me: int) -> None:
        """Exact updates from the events this seat was shown (in order)."""
        for e in events:
            kind = e.get("type")
            if kind in ("setup", "position"):
                players = e["players"]
                self.reset(None)
                self.players = players
                self.credits = [1.0] * players
                self.sensible = [self.prior] * players
                self.owed = [1] * players
                self.pile = e["pile"]
                self.in_pile = e["kings"] if kind == "setup" else len(e["active"]) - 1
                self.started = True
                self.fed = True
                continue
            if not self.fed:
                continue  # events from the middle of a game we did not see start: stay on estimates
            if kind == "draw":
                if e.get("card") == "K":
                    self.king_draw(self.in_pile, self.pile)
                else:
                    self.plain_draw(self.in_pile, self.pile)
                self.pile = e["pile"]
            elif kind == "insert":
                size = e["pile"] - 1
                if e["seat"] == me and "index" in e:
                    self.insert_mine(e["index"], size)
                else:
                    self.insert_other(size, e["seat"], self.owed[e["seat"]])
                self.pile = e["pile"]
            elif kind == "shuffle":
                self.shuffle()
            elif kind == "turn":
                self.owed[e["seat"]] = e["T"]
            elif kind == "peek" and e["seat"] == me and "cards" in e:
                self.top = list(e["cards"])
                self._align_peek()
            elif kind == "douse":
                self.credits[e["seat"]] = max(self.credits[e["seat"]] - 1.0, 0.0)
            elif kind in ("give", "steal") and e.get("card") == "Bk":
                giver = e["from"] if kind == "give" else e["target"]
                taker = e["to"] if kind == "give" else e["seat"]
                self.credits[giver] = max(self.credits[giver] - 1.0, 0.0)
                self.credits[taker] += 1.0
            elif kind == "handover" and e.get("moved") and e.get("name") == "Bk":
                self.credits[e["target"]] = max(self.credits[e["target"]] - 1.0, 0.0)
                self.credits[e["seat"]] += 1.0
            elif kind == "eliminate":
                self.credits[e["seat"]] = 0.0
                self.pile = e["pile"]
                self.in_pile -= 1
            elif kind == "forfeit":
                self.shuffle()  # a King left the pile from an unknown place
                self.in_pile -= 1

    def _align_peek(self) -> None:
        """After a Peek: the tracked Kings move below the seen cards (a seen King is in ``top`` itself)."""
        seen = len(self.top)
        kept = []
        for k in self.kings:
            ds = []
            for d in (k.d1, k.d0):
                rest = [0.0] * seen + d[seen:]
                mass = sum(rest)
                ds.append([x / mass for x in rest] if mass > 1e-12 else None)
            if ds[0] is None and ds[1] is None:
                continue
            kept.append(_King(ds[0] or ds[1], ds[1] or ds[0], k.owner))
        self.kings = kept

    def observe(self, obs: Observation) -> None:
        """Bring the memory up to date with a new observation of this seat."""
        me = obs["seat"]
        discard = obs["discard"]
        pile = obs["pile"]
        if self.fed:
            pass  # the events keep the memory exact; a new game starts with its setup event
        elif (not self.started or obs["starter"] != self.starter or obs["players"] != self.players
                or pile > self.pile + 1 or len(discard) + 1 < len(self.discard)):
            self.reset(obs)  # a new game (or the first look at this one)
            return
        else:
            self.view = obs
            self._reconstruct(obs, me)
        self.view = obs
        self.pile = pile
        self.discard = list(discard)
        self.sizes = list(obs["hand_sizes"])
        self.forfeited = len(obs["forfeited"])
        self.fit(pile, obs["kings"])

    def _reconstruct(self, obs: Observation, me: int) -> None:
        """Replay what happened since the last observation, as far as it can be told."""
        discard = obs["discard"]
        pile = obs["pile"]
        old = self.discard
        if discard[:len(old)] == old:
            added = discard[len(old):]
        else:  # a five-different took a card: the order of the new cards is lost
            added = list((Counter(discard) - Counter(old)).elements())
        if "8" in added or len(obs["forfeited"]) != self.forfeited:
            self.shuffle()  # possibly shuffled (a vetoed Shuffle is taken as a real one)
            return
        my_douse = obs["decision"] == "KD4"
        douses = added.count("Bk") - (1 if my_douse else 0)
        falls = added.count("K")
        kings = obs["kings"] + (1 if my_douse else 0)  # Kings in the pile before the last draw
        # Each douse by another seat: a King drawn and put back (pile unchanged).  Each elimination: a
        # King drawn.  The rest of the drop in pile size: plain draws.
        plain = max(self.pile - pile - falls - (1 if my_douse else 0), 0)
        late = False
        if douses > 0:
            last = max(i for i, c in enumerate(added) if c == "Bk" and not (my_douse and i == len(added) - 1))
            tail = added[last + 1:]
            if my_douse:
                tail = tail[:-1]
            n = obs["players"]
            prev = next((s for s in ((me - k) % n for k in range(1, n)) if s in obs["active"]), me)
            grew = obs["hand_sizes"][prev] - (self.sizes[prev] if prev < len(self.sizes) else 0)
            late = all(c in ("10", "J", "Q") for c in tail) and (plain == 0 or grew <= 0)
            inserter = prev if not tail else None
        size = self.pile
        for _ in range(douses - (1 if late else 0)):
            self.king_draw(kings, size)
            self.insert_other(size - 1)
        for _ in range(falls):
            self.king_draw(kings, size)
            size -= 1
            kings -= 1
        for _ in range(plain):
            self.plain_draw(kings, size)
            size -= 1
        if late:
            self.king_draw(kings, size)
            self.insert_other(size - 1, inserter)
        if my_douse:
            self.king_draw(kings, size)


# -- The policies --------------------------------------------------------------------------------------------------


def unseen_counts(obs: Observation) -> list[int]:
    """Cards of each type this seat cannot see (K: the Kings in the pile)."""
    count = [4, 6 - obs["removed"]["Bk"]] + [4] * 11
    for code in obs["hand"]:
        count[INDEX[code]] -= 1
    for code in obs["discard"]:
        count[INDEX[code]] -= 1
    count[K] = obs["kings"]
    return count


def hand_counts(obs: Observation) -> list[int]:
    h = [0] * 13
    for code in obs["hand"]:
        h[INDEX[code]] += 1
    return h


class KegHeuristic(Policy):
    """Rule-based play over the observation and a :class:`Memory` (see the module docstring)."""

    fresh = FRESH_P
    model = False
    learn = False
    prior = 1.0
    rules = HEURISTIC_RULES

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.memory = Memory(self.fresh, self.model, self.learn, self.prior)

    def observe_events(self, events: list[Event]) -> None:
        """Optional: the events this seat was shown since the last call (bot programs feed them)."""
        seat = next((e["seat"] for e in events if e.get("type") == "deal" and "hand" in e), None)
        if seat is not None:
            self._seat = seat
        self.memory.feed(events, getattr(self, "_seat", -1))

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        assert observation is not None
        self.memory.observe(observation)
        if len(legal) == 1:
            action = legal[0]
        else:
            action = _choose(legal, self.plan(observation))
        if action.get("type") == "insert" and not self.memory.fed:
            self.memory.insert_mine(action["index"], observation["pile"])
            self.memory.pile = observation["pile"] + 1
        return action

    # -- the rules on an observation ------------------------------------------------------------------------

    def buckets(self, obs: Observation) -> list[float]:
        """Expected buckets per seat (own hand exact)."""
        unseen = unseen_counts(obs)
        credits = self.memory.credits if self.memory.fed and len(self.memory.credits) == obs["players"] else None
        guess = bucket_guess(obs["hand_sizes"], obs["active"], obs["seat"], unseen[BK],
                             obs["pile"] - obs["kings"], credits)
        guess[obs["seat"]] = float(hand_counts(obs)[BK])
        return guess

    def plan(self, obs: Observation) -> Action:
        """The heuristic's action for the pending decision (built from the engine's tables)."""
        kind = obs["decision"]
        me = obs["seat"]
        h = hand_counts(obs)
        n = obs["players"]
        targets = _clockwise(obs["active"], me, n)
        if kind == "KD1":
            pile, kings = obs["pile"], obs["kings"]
            risk = self.memory.top_risk(pile, kings)
            five_ok = FIVE_DIFFERENT in obs["variants"] and "Bk" in obs["discard"]
            peek_ok = self.memory.fed and not self.memory.top
            return kd1_plan(h, targets, obs["hand_sizes"], obs["T"], risk, kings / pile,
                            self.buckets(obs), five_ok, peek_ok, self.rules)
        if kind == "KD2":
            chain = obs["chain"]
            author = chain["author"]
            victim = _clockwise(obs["active"], author, n)[0]
            veto = veto_plan(h, me, author, chain["play"], INDEX[chain["cards"][0]], chain["target"],
                             INDEX[chain["name"]] if chain["name"] else 0, len(chain["vetoes"]), victim, self.rules)
            return VETO if veto else PASS
        if kind == "KD3":
            return GIVE[give_plan(h)]
        if kind == "KD4":
            return INSERT[insert_plan(obs["insert"]["max"], obs["T"], targets, self.buckets(obs), self.rules)]
        dcount = [0] * 13
        for code in obs["takeable"]:
            dcount[INDEX[code]] = 1
        return TAKE[take_plan(dcount)]


# -- The searcher -----------------------------------------------------------------------------------------------


class _Sim:
    """What the simulated players know in a playout: public douses, a fresh King, their own Kings."""

    __slots__ = ("bk", "fresh", "inserter", "known", "rules")

    def __init__(self, bk: list[float], fresh: bool, n: int, rules: list[Rules]) -> None:
        self.bk = bk
        self.rules = rules  # per seat
        self.fresh = fresh  # a King was put back by another seat and no safe draw has come since
        self.inserter = -1
        self.known = [-1] * n  # per seat: list index (from the bottom) of the King it put back


def _sim_action(st: KegState, sim: _Sim) -> Action:
    """The heuristic's choice inside a playout, read straight from the engine's state."""
    kind = st.kind
    seat = st.seat
    n = st.n
    h = st.hands[seat]
    active = st.active
    if kind == KD1:
        pile = st.pile
        size = len(pile)
        uniform = (st.n_active - 1) / size
        risk = uniform
        where = sim.known[seat]
        if where >= 0:
            if where < size and pile[where] == K:
                if where == size - 1:
                    risk = 1.0
            else:
                sim.known[seat] = -1
        if risk < 1.0 and sim.fresh and sim.inserter != seat:
            risk = FRESH_P + (1.0 - FRESH_P) * uniform
        targets = [(seat + k) % n for k in range(1, n) if active[(seat + k) % n]]
        five_ok = st.five and st.dcount[BK] > 0
        return kd1_plan(h, targets, st.sizes, st.T, risk, uniform, sim.bk, five_ok, False, sim.rules[seat])
    if kind == KD2:
        chain = st.chain
        author = chain["seat"]
        victim = next((author + k) % n for k in range(1, n) if active[(author + k) % n])
        name = chain["name"]
        veto = veto_plan(h, seat, author, chain["play"], INDEX[chain["cards"][0]], chain["target"],
                         INDEX[name] if name else 0, len(st.vetoes), victim, sim.rules[seat])
        return VETO if veto else PASS
    if kind == KD3:
        return GIVE[give_plan(h)]
    if kind == KD4:
        targets = [(seat + k) % n for k in range(1, n) if active[(seat + k) % n]]
        return INSERT[insert_plan(len(st.pile), st.T, targets, sim.bk, sim.rules[seat])]
    return TAKE[take_plan(st.dcount)]


# A linear model of a seat's share of the final ranking among the players still in, fitted on
# heuristic self-play (all table sizes and variants) at the start of turns; one row per number of
# active players.  Features: see _features.
VALUE_WEIGHTS: dict[int, tuple[float, ...]] = {
    2: (0.4299, -0.1371, 0.0484, 0.1057, -0.0099, -0.0596, 0.0847, 0.0474, 0.0071, 0.0238, 0.0044, -0.0426, 0.0914, -0.0227, -0.0185, -0.0306),
    3: (0.3454, -0.1391, 0.1475, 0.0536, 0.0202, 0.0118, 0.0522, -0.0198, -0.0041, -0.0071, 0.0107, -0.1837, 0.2224, 0.0828, -0.0434, 0.0281),
    4: (0.3784, -0.1712, 0.1377, 0.0782, 0.0490, 0.0233, 0.0572, -0.0230, -0.0011, -0.0272, 0.0023, -0.1614, 0.2136, 0.0855, -0.0419, 0.0163),
    5: (0.4203, -0.2340, 0.1815, 0.0969, 0.0780, 0.0387, 0.0652, -0.0405, 0.0040, -0.0138, -0.0057, -0.0359, 0.0569, 0.0896, -0.0167, -0.0002),
}


def _features(st: KegState, s: int, distance: int) -> tuple[float, ...]:
    """The value model's inputs for seat ``s``, ``distance`` turns away from the current player."""
    h = st.hands[s]
    na = st.n_active
    risk = (na - 1) / max(len(st.pile), 1)
    bare = 1.0 if h[BK] == 0 else 0.0
    owed = st.T if distance == 0 else 0
    return (1.0, bare, 1.0 if h[BK] >= 2 else 0.0, min(h[J], 3), min(h[SKIP], 3), min(h[SHUFFLE], 2),
            min(h[Q], 3), min(h[FAVOUR], 2), min(h[PEEK], 2), min(sum(1 for t in PLAIN if h[t] >= 2), 3),
            min(st.sizes[s], 12), risk * bare, risk, distance / na, owed * bare, owed)


def evaluate(st: KegState, me: int) -> float:
    """``me``'s expected score (1 = win, 0 = last, linear in the place) from the value model."""
    n = st.n
    if not st.active[me]:
        return st.eliminated.index(me) / (n - 1) if me in st.eliminated else 0.0
    na = st.n_active
    if na == 1:
        return 1.0
    w = VALUE_WEIGHTS[na]
    total = 0.0
    mine = 0.0
    seat, distance = st.cur, 0
    for _ in range(n):
        if st.active[seat]:
            v = sum(a * b for a, b in zip(w, _features(st, seat, distance)))
            total += v
            if seat == me:
                mine = v
            distance += 1
        seat = (seat + 1) % n
    share = min(max(mine - total / na + 0.5, 0.0), 1.0)
    return (n - na + (na - 1) * share) / (n - 1)


def playout(st: KegState, sim: _Sim, me: int) -> float:
    """Play on with the heuristic in every seat until ``me``'s next turn begins (or ``me`` is out, or the
    game ends) and score the position for ``me`` with :func:`evaluate`."""
    n = st.n
    while st.kind:
        if st.cur == me and st.kind == KD1 and st.log[-1]["type"] == "turn":
            return evaluate(st, me)
        action = _sim_action(st, sim)
        seat = st.seat
        if action is DRAW:
            alive = st.n_active
            st.apply(action)
            if st.n_active < alive:
                sim.fresh = False
                if seat == me:
                    return (n - st.n_active - 1) / (n - 1)
            elif st.kind == KD4 and st.seat == seat:
                sim.bk[seat] = max(sim.bk[seat] - 1.0, 0.0)
            else:
                sim.fresh = False
            continue
        if action is SINGLE[SHUFFLE]:
            sim.fresh = False
            sim.known = [-1] * n
        elif st.kind == KD4:
            size = len(st.pile)
            where = size - action["index"]
            known = sim.known
            for s in range(n):
                if known[s] >= where:
                    known[s] += 1
            known[seat] = where
            sim.fresh = True
            sim.inserter = seat
        st.apply(action)
    return 1.0 if st.active[me] else 0.0


class KegStrong(KegHeuristic):
    """Determinized Monte-Carlo search with card counting (see the module docstring).

    ``deals`` random deals of the unseen cards are drawn per decision; every candidate action is
    played out once on each, from the same deal and the same chance seed.  Decisions the heuristic
    sees as forced (a single candidate) are not searched.
    """

    deals = 12
    margin = 0.02
    z = 1.5
    fresh = 0.95
    model = True
    learn = True
    prior = 0.7

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self._config: GameConfig | None = None

    def act(self, observation: Observation | None, legal: list[Action]) -> Action:
        assert observation is not None
        self.memory.observe(observation)
        if len(legal) == 1:
            action = legal[0]
        else:
            kind = observation["decision"]
            action = None
            if kind in ("KD1", "KD4"):
                candidates = self.candidates(observation, legal)
                if len(candidates) > 1:
                    action = self.pick(observation, candidates)
                elif candidates:
                    action = candidates[0]
            if action is None:
                action = self.plan(observation)
            action = _choose(legal, action)
        if action.get("type") == "insert" and not self.memory.fed:
            self.memory.insert_mine(action["index"], observation["pile"])
            self.memory.pile = observation["pile"] + 1
        return action

    def candidates(self, obs: Observation, legal: list[Action]) -> list[Action]:
        """The actions worth searching; the heuristic's choice first."""
        first = self.plan(obs)
        out = [first]
        if obs["decision"] == "KD4":
            size = obs["insert"]["max"]
            for p in sorted({0, 1, 2, obs["players"] - 1, size // 2, size}):
                if p <= size and INSERT[p] != first:
                    out.append(INSERT[p])
            return out
        h = hand_counts(obs)
        me = obs["seat"]
        sizes = obs["hand_sizes"]
        targets = [s for s in _clockwise(obs["active"], me, obs["players"]) if sizes[s]]
        bk = self.buckets(obs)
        extra: list[Action] = [DRAW]
        for t in (J, SKIP, SHUFFLE):
            if h[t]:
                extra.append(SINGLE[t])
        if targets:
            rich = max(targets, key=lambda s: (bk[s] / sizes[s], sizes[s]))
            if h[FAVOUR]:
                extra.append(FAVOUR_ACTION[max(targets, key=lambda s: (sizes[s], bk[s]))])
            for t in PAIR_TYPES:
                if h[t] >= 2:
                    extra.append(PAIR[t, rich])
                    if h[t] >= 3:
                        extra.append(TRIPLE[t, max(targets, key=lambda s: (bk[s], sizes[s])), BK])
                    break
        for a in extra:
            if a not in out and a in legal:
                out.append(a)
        return out

    # -- determinization ------------------------------------------------------------------------------------

    def deal(self, obs: Observation, unseen: list[int], bk: list[float]) -> tuple[list[list[str]], list[str]] | None:
        """One random assignment of the unseen cards to the other hands and the pile (top first)."""
        rng = self.rng
        me = obs["seat"]
        sizes = obs["hand_sizes"]
        size = obs["pile"]
        mem = self.memory
        slots: list[str | None] = [None] * size
        pool = list(unseen)
        for i, code in enumerate(mem.top[:size]):
            t = INDEX[code]
            if pool[t] <= 0:
                return None
            pool[t] -= 1
            slots[i] = code
        aims = {s: rng.random() < mem.weight(s) for s in {k.owner for k in mem.kings}}
        for k in sorted(mem.kings, key=lambda k: k.owner != -1):  # own Kings first: they are the surest
            if pool[K] <= 0:
                break
            d = k.d1 if aims[k.owner] else k.d0
            free = [(i, d[i]) for i in range(min(len(d), size)) if slots[i] is None and d[i] > 0.0]
            mass = sum(w for _, w in free)
            if mass <= 0.0:
                continue
            x = rng.random() * mass
            for i, w in free:
                x -= w
                if x <= 0.0:
                    break
            slots[i] = "K"
            pool[K] -= 1
        free = [i for i in range(size) if slots[i] is None]
        if pool[K] > len(free):
            return None
        for i in rng.sample(free, pool[K]):
            slots[i] = "K"
        pool[K] = 0
        hands: list[list[str]] = []
        rest: list[str] = []
        for t in range(1, 13):
            rest.extend([CODES[t]] * pool[t])
        rng.shuffle(rest)
        held = [[] for _ in sizes]
        for s in obs["active"]:
            if s != me and sizes[s] and rng.random() < bk[s] and "Bk" in rest:
                rest.remove("Bk")
                held[s].append("Bk")
        pos = 0
        for s in range(len(sizes)):
            if s == me:
                hands.append(list(obs["hand"]))
                continue
            need = sizes[s] - len(held[s])
            hands.append(held[s] + rest[pos:pos + need])
            pos += need
        fill = rest[pos:]
        if len(fill) != sum(1 for x in slots if x is None) or any(len(hands[s]) != sizes[s] for s in range(len(sizes))):
            return None
        it = iter(fill)
        pile = [x if x is not None else next(it) for x in slots]
        return hands, pile

    def base_state(self, obs: Observation, hands: list[list[str]], pile: list[str]) -> KegState:
        """The engine's state for one deal, at this seat's pending KD1 or KD4 decision."""
        config = self._config
        if config is None or config.players != obs["players"] or config.variants != tuple(obs["variants"]):
            config = self._config = GameConfig(players=obs["players"], variants=tuple(obs["variants"]),
                                               max_decisions=100_000)
        me = obs["seat"]
        waiting = obs["decision"] == "KD4"
        st = KegState.from_position(
            config, hands, pile + (["K"] if waiting else []), chance=_NULL, discard=obs["discard"], current=me,
            T=obs["T"], D=obs["D"], active=obs["active"], removed=obs["removed"],
        )
        if waiting:
            del st.pile[0]  # the doused King waits outside the pile for its index
            st.kind, st.seat, st._legal = KD4, me, None
        return st

    def pick(self, obs: Observation, candidates: list[Action]) -> Action | None:
        """The heuristic's choice (the first candidate) unless another one beats it clearly on the
        same deals: by ``margin`` and by ``z`` standard errors of the paired difference."""
        rows = self.search(obs, candidates)
        if not rows:
            return None
        m = len(rows)
        best, best_gain = 0, 0.0
        for j in range(1, len(candidates)):
            diffs = [r[j] - r[0] for r in rows]
            mean = sum(diffs) / m
            if mean <= self.margin or mean <= best_gain:
                continue
            var = sum((d - mean) ** 2 for d in diffs) / max(m - 1, 1)
            if mean * mean * m > self.z * self.z * var:
                best, best_gain = j, mean
        return candidates[best]

    def search(self, obs: Observation, candidates: list[Action]) -> list[list[float]] | None:
        """Playout scores of the candidates, one row per deal; None if no deal fits."""
        unseen = unseen_counts(obs)
        me = obs["seat"]
        n = obs["players"]
        bk = self.buckets(obs)
        public_bk = list(bk)
        others = [s for s in obs["active"] if s != me]
        need = sum(obs["hand_sizes"][s] for s in others) + obs["pile"]
        if sum(unseen) != need:
            return None
        mem = self.memory
        fresh = any(k.owner != -1 and mem.at_top(k) > 0.3 for k in mem.kings)
        seat_rules = [HEURISTIC_RULES] * n
        seat_rules[me] = self.rules
        rows: list[list[float]] = []
        rng = self.rng
        for _ in range(self.deals):
            deal = self.deal(obs, unseen, bk)
            if deal is None:
                continue
            base = self.base_state(obs, *deal)
            totals = [0.0] * len(candidates)
            rows.append(totals)
            seed = rng.getrandbits(64)
            for j, action in enumerate(candidates):
                st = base.clone(chance=SeededChance(seed))
                sim = _Sim(list(public_bk), fresh, n, seat_rules)
                if obs["decision"] == "KD4":
                    sim.known[me] = len(st.pile) - action["index"]
                    sim.inserter = me
                    sim.fresh = True
                    st.apply(action)
                    totals[j] += playout(st, sim, me)
                    continue
                if action is DRAW:
                    alive = st.n_active
                    st.apply(action)
                    if st.n_active < alive:
                        totals[j] += (n - st.n_active - 1) / (n - 1) if not st.active[me] else 1.0
                        continue
                    sim.fresh = False
                else:
                    st.apply(action)
                totals[j] += playout(st, sim, me)
        return rows or None


class _NullChance(SeededChance):
    """Placeholder chance for a dealt base state; every playout clones it with its own seeded chance."""

    def __init__(self) -> None:
        super().__init__(0)


_NULL = _NullChance()

POLICIES = {"heuristic": KegHeuristic, "strong": KegStrong}
