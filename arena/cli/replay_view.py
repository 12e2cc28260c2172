"""``arena replay``: a game record told turn by turn, checked by replaying it through the engine,
and what one seat was shown at each of its decisions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from arena.games import get_game
from arena.games.record import check_replayed, replay_steps
from arena.games.seat_view import seat_decisions


SEAT_KEYS = ("seat", "target", "author", "from", "to", "starter", "winner", "next")
PER_SEAT_KEYS = ("places",)  # lists with an entry for each seat
# Engine names spelled out for a reader (Powder Keg's R4: turns owed, handed over by a Double).
LABELS = {"T": "owed", "D": "doubled"}


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return "[" + " ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_value(x)}" for k, x in v.items()) + "}"
    return str(v)


def _fields(items: Any, names: list[str]) -> list[str]:
    """``key=value`` for each field that says something: seats by their bot's name, nothing for
    a field that is not set (None)."""
    parts = []
    for key, value in items:
        if value is None:
            continue
        if key in SEAT_KEYS and type(value) is int and 0 <= value < len(names):
            parts.append(f"{key}={names[value]}")
        elif key in PER_SEAT_KEYS and isinstance(value, list) and len(value) == len(names):
            parts.append(f"{key}=[" + " ".join(f"{name}:{_value(v)}" for name, v in zip(names, value)) + "]")
        else:
            parts.append(f"{LABELS.get(key, key)}={_value(value)}")
    return parts


def describe_event(event: dict[str, Any], names: list[str]) -> str:
    """One event in a line, hidden parts shown (the replay is for after the game)."""
    parts = _fields(((k, v) for k, v in event.items() if k not in ("type", "private")), names)
    private = event.get("private")
    if private:
        seen = ",".join(names[s] for s in private.get("to", []) if 0 <= s < len(names))
        hidden = " ".join(_fields(((k, v) for k, v in private.items() if k != "to"), names))
        parts.append(f"(seen by {seen} only: {hidden})")
    return f"{event.get('type', '?')}: " + " ".join(parts)


def describe_action(entry: dict[str, Any], names: list[str]) -> str:
    action = dict(entry["action"])
    kind = action.pop("type", "?")
    who = names[entry["seat"]] if 0 <= entry["seat"] < len(names) else str(entry["seat"])
    if kind == "forfeit":  # the referee's doing, not a decision of the bot
        when = "before the first decision: it was not playing" if action.get("absent") else "at its turn"
        return f">> {who} forfeits ({action.get('reason', 'forfeit')}), {when}"
    detail = " ".join(_fields(action.items(), names))
    notes = []
    if entry.get("auto"):
        notes.append("only legal action, applied by the referee")
    if "ms" in entry:
        notes.append(f"{entry['ms']} ms")
    if entry.get("fault"):
        notes.append(f"fault: {entry['fault']}")
    note = f"  ({'; '.join(notes)})" if notes else ""
    return f">> {who} decides: {kind} {detail}".rstrip() + note


def replay_lines(record: dict[str, Any]) -> Iterator[str]:
    """The game, event by event, with each decision where it was taken."""
    game = get_game(record["game"])
    names = list(record["seats"])
    config = record["config"]
    yield (f"{game.title} game {record.get('game_id', '')}: "
           + ", ".join(f"seat {i} {n}" for i, n in enumerate(names))
           + (f"; variants: {', '.join(config['variants'])}" if config.get("variants") else ""))
    shown = 0
    state = None
    # Absent seats leave together (one step of the engine): their lines first, then the events.
    absent_left = sum(1 for d in record["decisions"] if d["action"].get("absent"))
    for entry, state in replay_steps(game, record):
        if entry is not None:
            yield describe_action(entry, names)
            if entry["action"].get("absent"):
                absent_left -= 1
                if absent_left:
                    continue
        for event in state.log[shown:]:
            yield "   " + describe_event(event, names)
        shown = len(state.log)
    assert state is not None
    check_replayed(state, record)  # before the result is shown as checked
    result = record["result"]
    order = sorted(range(len(names)), key=result["places"].__getitem__)
    yield "result: " + ", ".join(f"{result['places'][s]}. {names[s]}" for s in order)
    for fault in record.get("faults", []):
        yield f"fault: {names[fault['seat']]} {fault['kind']}: {fault['message']}"
    for seat, text in sorted(record.get("logs", {}).items()):
        if text.strip():
            yield f"stderr of {names[int(seat)]}:"
            yield from ("   " + line for line in text.strip().splitlines()[-20:])


def seat_json(game_id: str, record: dict[str, Any], seat: int) -> dict[str, Any]:
    """``arena replay --seat N --json``: the decisions of one seat of game ``game_id`` as data."""
    decisions = seat_decisions(get_game(record["game"]), record, seat)
    return {"game_id": game_id, "seat": seat, "bot": record["seats"][seat],
            "decisions": [d.to_json() for d in decisions]}


def seat_lines(record: dict[str, Any], seat: int) -> Iterator[str]:
    """``arena replay --seat N``: each decision of one seat with what it was shown (observation,
    the events since its last request, the legal actions), what it answered and how long it took."""
    names = record["seats"]
    decisions = seat_decisions(get_game(record["game"]), record, seat)
    yield f"{record.get('game_id', 'game')}: seat {seat} ({names[seat]}), {len(decisions)} decision(s)"
    for d in decisions:
        how = "asked" if d.asked else ("forfeited" if d.action.get("type") == "forfeit" else
                                        "applied without asking (its one legal action)")
        if d.cover:
            how = "asked as a cover (no decision of the rules, not in the record)"
        took = f", {d.ms:g} ms" if d.ms is not None else ""
        fault = f", fault: {d.fault}" if d.fault else ""
        yield f"decision {d.number} {d.kind}: {how}{took}{fault}"
        if d.asked:
            for event in d.events:
                yield "  event: " + " ".join(_fields(event.items(), names))
            yield "  observation: " + " ".join(_fields(d.observation.items(), names))
            yield f"  legal ({len(d.legal)}): " + ", ".join(_value(a) for a in d.legal)
        yield f"  answer: {_value(d.action)}"
