"""Game records: everything needed to re-check a game without our random generator.

A record is one JSON object:

* ``format`` — ``"arena-record/1"``;
* ``game``, ``config`` (players, variants, starter, points, caps), ``seats`` (names);
* ``match`` — which match and which game of it, and the points before this game;
* ``chance`` — every random outcome as realised, in order (shuffles' full orders, picks);
* ``decisions`` — every decision in order: ``{"seat": s, "action": {...}}``; a forfeit is an
  action of type ``"forfeit"`` (``"absent": true`` for seats whose bots never joined: they
  come first and leave together, see ``State.forfeit_absent``); the referee may add ``"auto": true`` (applied without asking,
  a single legal action), ``"ms"`` (thinking time) and ``"fault"``;
* ``events`` — the engine's full event log, hidden parts included (for viewing and checking);
* ``result`` — places, winner, capped, forfeits.

Replaying feeds ``chance`` back through :class:`ReplayChance` and applies ``decisions``; the
replay must reproduce ``events`` and ``result`` exactly.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from arena.games.base import Game, GameConfig, GameError, State
from arena.games.chance import ReplayChance, ReplayError, SeededChance

FORMAT = "arena-record/1"


def make_record(
    game: Game,
    state: State,
    *,
    seats: list[str],
    seed: str | int | None = None,
    match: dict[str, Any] | None = None,
    extra: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The record of a finished game played with a :class:`SeededChance`.

    ``extra`` optionally holds per-decision annotations from the referee (same length as the
    decision list), merged into each decision entry.
    """
    chance = state.chance
    if not isinstance(chance, (SeededChance, ReplayChance)):
        raise GameError("a record needs a game played with SeededChance or ReplayChance")
    chance_log = chance.log if isinstance(chance, SeededChance) else chance.events[: chance.pos]
    decisions = []
    for i, (seat, action) in enumerate(state.decisions):
        entry: dict[str, Any] = {"seat": seat, "action": action}
        if extra is not None and extra[i]:
            entry.update(extra[i])
        decisions.append(entry)
    return {
        "format": FORMAT,
        "game": game.name,
        "config": state.config.to_json(),
        "seed": seed,
        "seats": list(seats),
        "match": match or {"index": 0, "game": 0, "scores": [0] * state.config.players},
        "chance": list(chance_log),
        "decisions": decisions,
        "events": list(state.log),
        "result": state.result().to_json(),
    }


def replay_steps(game: Game, record: dict[str, Any]) -> Iterator[tuple[dict[str, Any] | None, State]]:
    """Yield ``(decision, state after it)`` for every step, starting with ``(None, dealt state)``.

    Uses only the record's chance events, never a random generator.  The yielded state is the
    live replay state (mutated by the next step): copy what you need before advancing.
    """
    if record.get("format") != FORMAT:
        raise ReplayError(f"not an {FORMAT} record (format: {record.get('format')!r})")
    if record.get("game") != game.name:
        raise ReplayError(f"record is of {record.get('game')!r}, not {game.name!r}")
    chance = ReplayChance(record["chance"])
    state = game.new_game(GameConfig.from_json(record["config"]), chance)
    yield None, state
    entries = record["decisions"]
    # Seats whose bots never joined left together before the first decision (``"absent"``).
    absent = {e["seat"]: e["action"].get("reason", "forfeit") for e in entries if e["action"].get("absent")}
    if absent:
        if any(e["action"].get("absent") for e in entries[len(absent):]):
            raise ReplayError("absent seats' forfeits must come first, once per seat")
        try:
            state.forfeit_absent(absent)
        except GameError as exc:
            raise ReplayError(f"absent seats {sorted(absent)}: {exc}") from exc
        for entry in entries[: len(absent)]:
            yield entry, state
    for number, entry in enumerate(entries[len(absent):], len(absent)):
        decision = state.to_move()
        seat, action = entry["seat"], entry["action"]
        if decision is None:
            raise ReplayError(f"decision {number}: the game is already over")
        if decision.seat != seat:
            raise ReplayError(f"decision {number}: seat {seat} acts, but seat {decision.seat} must decide")
        if action.get("type") == "forfeit":
            state.forfeit(seat, action.get("reason", "forfeit"))
        else:
            state.apply(action)
        yield entry, state


def replay(game: Game, record: dict[str, Any]) -> State:
    """Replay a record and check it: same event log, same result, every chance event used."""
    state = None
    for _, state in replay_steps(game, record):
        pass
    assert state is not None
    check_replayed(state, record)
    return state


def check_replayed(state: State, record: dict[str, Any]) -> None:
    """After the last of :func:`replay_steps`: the record must have ended the game, used every
    chance event, and logged the very events and result the replay produced."""
    if not state.terminal:
        raise ReplayError("the record's decisions stop before the game is over")
    chance = state.chance
    assert isinstance(chance, ReplayChance)
    if not chance.exhausted:
        raise ReplayError(f"the record has {len(chance.events) - chance.pos} unused chance events")
    if state.log != record["events"]:
        first = next(
            (i for i, (a, b) in enumerate(zip(state.log, record["events"])) if a != b),
            min(len(state.log), len(record["events"])),
        )
        raise ReplayError(f"the replay's event {first} differs from the record's")
    if state.result().to_json() != record["result"]:
        raise ReplayError("the replay's result differs from the record's")
