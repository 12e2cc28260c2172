"""Does the referee's timing tell a bot what the other seats hide?  A spy bot times it; a classifier tries.

    python benchmarks/timing_channel.py --game powder-keg --players 4 --games 300
    python benchmarks/timing_channel.py --game reactor --players 4 --games 300 --no-uniform

The spy (``tests/bots/spy_timing.py``) sits at seat 0 against random bots and notes, after each of
its answers, how long the referee took to send it its next message.  The games' records, replayed,
say what was hidden at that moment:

* Powder Keg: after the spy opens a Veto window with a play that nobody vetoes (a veto is public),
  did another seat hold a Queen, and so get polled?  (A referee that polls only the holders spends a
  round trip on each; one that polls every seat, ``uniform_timing``, spends the same whatever they
  hold.)
* Reactor: was one of the other seats' decisions between the spy's answer and its next message
  forced (a single legal action, which a referee may apply without a round trip)?

A classifier then guesses that fact from the gap and from what is public about the moment (the
play, how many seats are in, the next message and how many of its events are the other seats',
how many decisions came between), with 5-fold
cross-validation: per group of equal public facts, a threshold on the gap, a histogram of log-gaps
(naive Bayes) or the group's commonest answer, whichever guesses best in a cross-validation within
the training folds.  It is compared with the base
rate: guessing, per group, what is most common there (and the overall share of the commonest
answer, for reference).  A bot's own think-time is not timed here: the other seats are random bots,
whose time does not depend on their cards.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games import GameConfig, get_game
from arena.games.record import replay_steps
from arena.referee import BotSpec, MatchPlan, Referee, RefereeConfig, bot_spec

ROOT = Path(__file__).resolve().parent.parent
SPY = ROOT / "tests" / "bots" / "spy_timing.py"
RANDOM = ROOT / "bots" / "random_bot.py"


@dataclass(frozen=True, slots=True)
class Sample:
    group: tuple[Any, ...]  # the public facts of the moment
    gap_ns: int
    hidden: bool  # the fact the spy is after


def play(game_name: str, players: int, games: int, seed: str, uniform: bool, sandbox: str
         ) -> list[tuple[dict[str, Any], dict[int, tuple[int, tuple[str, int]]]]]:
    """Play ``games`` one-game matches with the spy at seat 0; return each game's record and the
    spy's gaps (its K-th rules decision -> ns), with the spy's text for the record's game."""
    game = get_game(game_name)
    spy = BotSpec("spy", (sys.executable, str(SPY), "{endpoint}"), (str(SPY),))
    bots = [spy] + [bot_spec(str(RANDOM), f"random{i}") for i in range(1, players)]
    config = RefereeConfig(sandbox_mode=sandbox, uniform_timing=uniform)
    plans = [MatchPlan(f"{seed}:{m}", f"m{m}") for m in range(games)]
    with Referee(config) as referee, referee.session() as session:
        reports = session.play_matches(game, GameConfig(players=players, points=1), bots, plans)
    text = "".join(g.logs.get(0, "") for r in reports for g in r.games)
    gaps: dict[str, dict[int, tuple[int, tuple[str, int]]]] = defaultdict(dict)
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 6 and parts[0] == "spy" and parts[2] != "-1":
            gaps[parts[1]][int(parts[2])] = (int(parts[3]), (parts[4], int(parts[5])))
    out = []
    for report in reports:
        for g in report.games:
            if not g.faults:
                out.append((g.record, gaps.get(g.game_id, {})))
    return out


PLAYS = frozenset({"play", "favour", "pair", "triple", "five"})  # Powder Keg actions that open a Veto window
QUEEN = 2  # Powder Keg's card index of the Queen (the Veto)


def keg_samples(record: dict[str, Any], gaps: dict[int, tuple[int, tuple[str, int]]]) -> list[Sample]:
    """One sample per play of the spy that opened a Veto window nobody vetoed."""
    plays = []  # (its K, the play, active seats, whether another held a Queen, where its events begin)
    asked = -1  # the spy's rules decisions that it was asked, in order
    state = None
    for entry, state in replay_steps(get_game("powder-keg"), record):
        if entry is None or entry["seat"] != 0 or entry["action"]["type"] == "forfeit" or entry.get("auto"):
            continue
        asked += 1
        action = entry["action"]
        if action["type"] in PLAYS:
            # The window is open now (the replay state is right after the play): who could be polled.
            others = any(state.active[q] and state.hands[q][QUEEN] for q in range(state.n) if q != 0)
            plays.append((asked, action["type"], state.n_active, others, len(state.log)))
    samples = []
    for k, kind, active, others, start in plays:
        window = next((e for e in state.log[start - 1:] if e["type"] == "window"), None)
        if window is None or window["vetoes"] or k not in gaps:
            continue  # a veto is public: nothing hidden to learn
        gap, nxt = gaps[k]
        samples.append(Sample((kind, active, *nxt), gap, others))
    return samples


def reactor_samples(record: dict[str, Any], gaps: dict[int, tuple[int, tuple[str, int]]]) -> list[Sample]:
    """One sample per answer of the spy: were any of the other seats' decisions before its next
    message forced?"""
    entries = record["decisions"]
    legal_counts = []  # of the decision each entry made
    for entry, state in replay_steps(get_game("reactor"), record):
        if not state.terminal:
            legal_counts.append(len(state.legal_actions()))  # the next entry's decision
    spy_turns = [i for i, e in enumerate(entries) if e["seat"] == 0 and not e.get("auto")
                 and e["action"]["type"] != "forfeit"]
    samples = []
    for k, i in enumerate(spy_turns):
        if k not in gaps:
            continue
        end = spy_turns[k + 1] if k + 1 < len(spy_turns) else len(entries)
        others = [j for j in range(i + 1, end) if entries[j]["seat"] != 0]
        if not others:
            continue  # its next message followed its own answer: nothing of the others in between
        forced = any(legal_counts[j] == 1 for j in others)
        gap, nxt = gaps[k]
        samples.append(Sample((len(others), *nxt), gap, forced))
    return samples


def _majority(train: list[Sample]) -> Any:
    common = Counter(s.hidden for s in train).most_common(1)[0][0] if train else False
    return lambda gap: common


def _threshold(train: list[Sample]) -> Any:
    """The best cut of the gap on the training samples: one side guessed yes, the other no."""
    best: tuple[int, Any] = (-1, _majority(train))
    gaps = sorted({s.gap_ns for s in train})
    for cut in gaps[:: max(1, len(gaps) // 200)]:
        for below in (True, False):
            right = sum(((s.gap_ns <= cut) == below) == s.hidden for s in train)
            if right > best[0]:
                best = (right, lambda gap, cut=cut, below=below: (gap <= cut) == below)
    return best[1]


def _histogram(train: list[Sample], bins: int = 30) -> Any:
    """Naive Bayes on the log of the gap: a smoothed histogram per answer."""
    logs = [math.log(max(s.gap_ns, 1)) for s in train]
    low, high = min(logs), max(logs) + 1e-9
    counts = {True: [1.0] * bins, False: [1.0] * bins}  # add-one smoothing
    for s, value in zip(train, logs):
        counts[s.hidden][int((value - low) / (high - low) * bins)] += 1
    prior = {c: sum(s.hidden == c for s in train) + 1.0 for c in (True, False)}
    totals = {c: sum(counts[c]) for c in (True, False)}

    def guess(gap: int) -> bool:
        b = min(bins - 1, max(0, int((math.log(max(gap, 1)) - low) / (high - low) * bins)))
        return prior[True] * counts[True][b] / totals[True] > prior[False] * counts[False][b] / totals[False]

    return guess


MODELS = (_majority, _threshold, _histogram)


def _fit(train: list[Sample], inner: int = 3) -> Any:
    """Of the models above, the one that guesses best in a cross-validation within ``train``
    (so that a model fitted to noise is not chosen), fitted to all of ``train``."""
    if len(train) < 2 * inner or len({s.hidden for s in train}) < 2:
        return _majority(train)
    scores = []
    for make in MODELS:
        right = 0
        for fold in range(inner):
            fit = make([s for n, s in enumerate(train) if n % inner != fold])
            right += sum(fit(s.gap_ns) == s.hidden for s in train[fold::inner])
        scores.append(right)
    return MODELS[scores.index(max(scores))](train)


def classify(samples: list[Sample], folds: int = 5, seed: int = 0) -> tuple[float, float, float]:
    """(cross-validated accuracy, base rate per group, overall share of the commonest answer)."""
    order = list(range(len(samples)))
    random.Random(seed).shuffle(order)
    right = base = 0
    for fold in range(folds):
        test = [samples[i] for i in order[fold::folds]]
        train = [samples[i] for n, i in enumerate(order) if n % folds != fold]
        by_group: dict[tuple[Any, ...], list[Sample]] = defaultdict(list)
        for s in train:
            by_group[s.group].append(s)
        models = {group: _fit(members) for group, members in by_group.items()}
        majorities = {group: _majority(members) for group, members in by_group.items()}
        overall = _majority(train)
        for s in test:
            right += models.get(s.group, overall)(s.gap_ns) == s.hidden
            base += majorities.get(s.group, overall)(s.gap_ns) == s.hidden
    common = Counter(s.hidden for s in samples).most_common(1)[0][1] / len(samples)
    return right / len(samples), base / len(samples), common


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=["powder-keg", "reactor"], default="powder-keg")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", default="timing")
    parser.add_argument("--no-uniform", dest="uniform", action="store_false",
                        help="the referee before uniform timing: single actions applied unasked, Veto polls of holders only")
    parser.add_argument("--sandbox", default="auto")
    args = parser.parse_args()
    played = play(args.game, args.players, args.games, args.seed, args.uniform, args.sandbox)
    make = keg_samples if args.game == "powder-keg" else reactor_samples
    samples = [s for record, gaps in played for s in make(record, gaps)]
    if len(samples) < 50:
        print(f"only {len(samples)} samples: play more games", file=sys.stderr)
        return 1
    accuracy, base, common = classify(samples)
    gaps = [s.gap_ns / 1000 for s in samples]
    fact = "another seat held a Queen" if args.game == "powder-keg" else "another seat's decision was forced"
    print(f"{args.game}, {args.players} seats, {len(played)} games, uniform timing {'on' if args.uniform else 'off'}: "
          f"{len(samples)} samples of whether {fact} ({sum(s.hidden for s in samples)} yes)")
    print(f"  gap median {statistics.median(gaps):.0f} us")
    print(f"  classifier {accuracy:.1%}, base rate {base:.1%} (per group of public facts; "
          f"the commonest answer overall: {common:.1%}); margin {100 * (accuracy - base):+.1f} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
