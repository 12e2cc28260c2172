"""What one seat was shown at each of its decisions, re-derived from a game's record.

A record keeps the chance outcomes and every decision; the engine is deterministic, so replaying
it gives back, at each decision of a seat, the very observation, events and legal actions the
referee built for that seat's request, and the record's annotations add the answer's time and
whether the decision was asked at all (a referee without uniform timing applies a decision with
one legal action without asking, and the bot learns it from the ``forced`` list of its next
message).  A record marked ``covers`` was played by a referee that also asked cover decisions
(:meth:`~arena.games.base.State.cover_hidden_skips`: a Powder Keg Veto poll of a seat without a
Queen), which are no decisions of the rules and not in the record; replayed with covers, the game
gives them back, and they are shown too (``cover``).  This is what a bot author needs to answer
"why did it play X?", and what the replay viewer's per-seat view shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from arena.games.base import Action, Event, Game, Observation
from arena.games.record import replay_steps


@dataclass(frozen=True, slots=True)
class SeatDecision:
    """One decision of the seat, as the seat saw it.

    ``number`` is the decision's index in the record (for a ``cover``, which the record does not
    list, the index of the recorded decision that comes next); ``asked`` is False for a decision the
    referee applied without a request (a single legal action: the bot was shown nothing then) and
    for a forfeit; ``events`` are the events shown since the seat's previous request (what that
    request carried), ``ms`` the answer's time as the referee measured it (none for a cover).
    """

    number: int
    kind: str
    observation: Observation
    legal: list[Action]
    action: Action
    events: list[Event] = field(default_factory=list)
    asked: bool = True
    ms: float | None = None
    fault: str | None = None
    cover: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "decision": self.kind, "asked": self.asked, "observation": self.observation,
                "events": self.events, "legal": self.legal, "action": self.action, "ms": self.ms,
                "fault": self.fault, "cover": self.cover}


def _copy(value: Any) -> Any:
    """A deep copy of JSON data (what a seat is shown is JSON): a fifth of copy.deepcopy's time,
    most of a long replay's."""
    return orjson.loads(orjson.dumps(value))


def seat_decisions(game: Game, record: dict[str, Any], seat: int) -> list[SeatDecision]:
    """Every decision of ``seat`` in the record, in order, as the seat saw it (see the module)."""
    return every_seat_decisions(game, record, [seat])[seat]


def every_seat_decisions(game: Game, record: dict[str, Any], seats: Iterable[int] | None = None,
                         ) -> dict[int, list[SeatDecision]]:
    """:func:`seat_decisions` of each of ``seats`` (None: every seat) from one replay of the
    game, not one each (the replay viewer shows every seat's)."""
    players = record["config"]["players"]
    wanted = list(range(players)) if seats is None else list(seats)
    for seat in wanted:
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not at this table (seats 0-{players - 1})")
    out: dict[int, list[SeatDecision]] = {seat: [] for seat in wanted}
    cursor = dict.fromkeys(wanted, 0)  # each seat's place in the event log: what it has been shown so far
    # The seat to move, if wanted, and what it was shown then (one seat moves at a time).
    seen: tuple[int, str, Observation, list[Action], list[Event], int] | None = None
    number = -1
    covers = bool(record.get("covers"))
    for entry, state in replay_steps(game, record):
        if entry is None and covers:
            state.cover_hidden_skips()
        if entry is not None:
            number += 1
            if seen is not None and entry["seat"] == seen[0]:
                seat, kind, observation, legal, events, shown_to = seen
                action = entry["action"]
                forfeit = action.get("type") == "forfeit"
                asked = not entry.get("auto") and not forfeit
                if asked:
                    cursor[seat] = shown_to
                out[seat].append(SeatDecision(number, kind, observation, legal, action, events if asked else [],
                                              asked=asked, ms=entry.get("ms"), fault=entry.get("fault")))
            seen = None
        while state.covering:  # cover decisions come before the next recorded one
            decision = state.to_move()
            assert decision is not None
            legal = state.legal_actions()
            if decision.seat in out:
                seat = decision.seat
                events = _copy(state.events(seat, cursor[seat]))
                cursor[seat] = len(state.log)
                out[seat].append(SeatDecision(number + 1, decision.kind, _copy(state.observation(seat)),
                                              _copy(legal), _copy(legal[0]), events, cover=True))
            state.apply(legal[0])
        decision = state.to_move()
        if decision is not None and decision.seat in out:
            seat = decision.seat
            # Copied now: the replay state moves on with the next step.
            seen = (seat, decision.kind, _copy(state.observation(seat)), _copy(state.legal_actions()),
                    _copy(state.events(seat, cursor[seat])), len(state.log))
    return out
