"""A stored game as the replay viewer steps through it: one frame per decision, checked.

The record is replayed through the rules engine (:func:`arena.games.record.replay_steps`), so
every frame is a state the engine reached, and the replay must end in the record's events and
result.  A frame keeps the public table once and each seat's hand; a seat's view is then the
public table plus its own hand, which is exactly the seat's observation (the engines build an
observation from a whitelist: the public table and the seat's hand; a test checks the two are
equal at every step).  The omniscient view adds every hand and the order of the draw pile.
What a seat was shown at its own decisions, and what it answered, comes from
:func:`arena.games.seat_view.every_seat_decisions`, the same as ``arena replay --seat N``.
"""

from __future__ import annotations

from typing import Any

from arena.games import get_game
from arena.games.base import State, redact
from arena.games.record import check_replayed, replay_steps
from arena.games.seat_view import every_seat_decisions

# Fields of an observation that are the seat's own, not the table's.
OWN_FIELDS = ("seat", "hand", "decision")


def public_table(observation: dict[str, Any]) -> dict[str, Any]:
    """An observation without the seat's own fields: what every seat sees alike."""
    return {k: v for k, v in observation.items() if k not in OWN_FIELDS}


def seat_view(frame: dict[str, Any], seat: int) -> dict[str, Any]:
    """The table as ``seat`` saw it in a frame: the public table and its own hand."""
    return {**frame["table"], "seat": seat, "hand": frame["hands"][seat]}


def _same(observation: dict[str, Any], rebuilt: dict[str, Any]) -> bool:
    """Whether an observation is its rebuilt view (the ``decision`` field names the decision
    the seat is asked, which the frame's ``to_move`` says)."""
    return {k: v for k, v in observation.items() if k != "decision"} == rebuilt


def frames(record: dict[str, Any]) -> dict[str, Any]:
    """Every frame of the game, its full event log, the per-seat redactions of events with hidden
    parts, and each seat's decisions as it saw them: the data of the replay viewer."""
    game = get_game(record["game"])
    players = record["config"]["players"]
    out: list[dict[str, Any]] = []
    state: State | None = None
    for entry, state in replay_steps(game, record):
        observations = [state.observation(s) for s in range(players)]
        decision = state.to_move()
        out.append({
            "decision": entry,
            "log": len(state.log),
            "table": public_table(observations[0]),
            "hands": [o["hand"] for o in observations],
            "pile": state.pile_top_first(),
            "to_move": None if decision is None else {"seat": decision.seat, "kind": decision.kind},
        })
    assert state is not None
    check_replayed(state, record)
    events = record["events"]
    hidden = {i: [redact(e, s) for s in range(players)] for i, e in enumerate(events) if "private" in e}
    seats = []
    for s, decisions in sorted(every_seat_decisions(game, record).items()):
        mine: dict[str, list[dict[str, Any]]] = {}
        for d in decisions:
            entry = d.to_json()
            # The observation a seat was sent is its frame's public table and its hand (checked
            # here, for every decision): the page rebuilds it rather than carry it twice.  A seat
            # not asked was shown nothing.
            if not d.asked or _same(d.observation, seat_view(out[d.number], s)):
                entry["observation"] = None
            # A cover decision (a Veto poll of a seat without a Queen, asked so that no seat's
            # timing tells what it holds) carries the number of the recorded one that follows.
            mine.setdefault(str(d.number), []).append(entry)
        seats.append(mine)
    return {
        "game": record["game"],
        "title": game.title,
        "cards": dict(game.card_names),  # the viewer's tooltips
        "names": list(record["seats"]),
        "variants": list(record["config"].get("variants", [])),
        "result": record["result"],
        # The match this game belongs to: Powder Keg's points before this game (R20).
        "match": record.get("match", {}),
        "points": record["config"].get("points"),
        "frames": out,
        "events": events,
        "redacted": {str(i): v for i, v in hidden.items()},
        "seat_decisions": seats,
    }
