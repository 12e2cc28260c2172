"""What a run under a stop rule says when it stops: why, and each neighbouring pair of the order.

A pair is *separated* (the upper bot is better, at the rule's alpha), *tied* (their difference
is shown to be inside the indifference zone) or *unresolved* (the run reached ``max_games``
first).  A separated pair whose measured difference is inside the zone is marked: the rule
promises nothing about the order of bots closer than delta (docs/confidence.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.ratings.stop import PairTest, StopDecision


def stop_lines(decision: StopDecision) -> list[str]:
    """The report, a line for the reason and one per neighbouring pair (best first)."""
    head = "stopped" if decision.stop else "not settled yet"
    lines = [f"{head}: {decision.reason} (stop rule: alpha {decision.alpha:g}, delta {decision.delta:g} "
             "mean places, pairs by mean place)"]
    width = max((len(f"{p.upper} > {p.lower}") for p in decision.pairs), default=0)
    lines += [f"  {f'{p.upper} > {p.lower}':<{width}}  {_pair(p, decision.delta)}" for p in decision.pairs]
    return lines


def _pair(p: PairTest, delta: float) -> str:
    shared = f"{p.games} games shared" if p.games else "no games shared"
    mean = f", mean place difference {p.mean:+.2f}" if p.mean is not None else ""
    if p.status == "tied":
        return f"tied (closer than {delta:g}){mean}, {shared}"
    if p.status == "separated":
        near = f"; closer than {delta:g}, so either order is possible" if p.mean is not None and p.mean < delta else ""
        return f"separated{mean}, {shared}{near}"
    reversed_ = f"; so far {p.lower} is ahead" if p.ahead == p.lower else ""
    return f"unresolved{mean}, {shared}{reversed_}"
