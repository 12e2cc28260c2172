"""Matches played in this process, for a bot author with a debugger: SDK bots (a class, a
function or an instance, as :func:`protocol.sdk.run` takes them) and built-in policies at one
table, with no sandbox, no socket and no clock, so a breakpoint in ``act`` simply waits.

Each bot is driven by the SDK's own message handling (:func:`protocol.sdk.in_process`) with the
messages the referee sends, the seeds and deals are the referee's, and a game's record is made
as the referee makes it: the same seed gives the same game as ``arena play`` (a test holds the
two to it).  What a sandboxed run adds is left out: timing (``time_left_ms`` stays the game's
budget), faults (an answer that is not legal raises :class:`IllegalAction`, where the debugger
stops) and stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from arena.bots.program import PolicyBot
from arena.core import ids
from arena.errors import ArenaError
from arena.games import GameConfig, GameResult, get_game
from arena.games.chance import SeededChance
from arena.games.match import Match
from arena.games.policy import policy_names
from arena.games.record import make_record
from arena.referee.config import RefereeConfig
from arena.referee.play import match_plans
from arena.referee.seat import bot_seed
from protocol import messages
from protocol.faults import ProtocolFault
from protocol.sdk import in_process

class IllegalAction(ArenaError):
    """An in-process bot answered with an action that is not legal (the referee would forfeit it)."""


def _driver(bot: Any, game: str) -> tuple[str, Any]:
    """A seat's name and what the SDK drives: a built-in policy by name, else the bot itself."""
    if isinstance(bot, str):
        if bot not in policy_names(game):
            known = ", ".join(policy_names(game))
            raise ArenaError(f"no built-in {game} bot {bot!r} (there are: {known}); or pass an SDK bot class")

        class Builtin(PolicyBot):
            def __init__(self) -> None:
                super().__init__(game, bot)

        return bot, Builtin
    name = getattr(bot, "__name__", type(bot).__name__)
    return name, bot


def play(bots: Sequence[Any], game: str = "reactor", *, seed: str = "0", matches: int = 1,
         variants: Sequence[str] = (), points: int | None = None, names: Sequence[str] | None = None,
         config: RefereeConfig | None = None) -> list[dict[str, Any]]:
    """Play ``matches`` matches between ``bots`` (seat 0 first) in this process, as ``arena play
    GAME BOT BOT ... --matches M --seed S`` would, and return every game's record in order."""
    found = get_game(game)
    config = config or RefereeConfig()
    drivers = [_driver(bot, found.name) for bot in bots]
    seat_names = list(names) if names is not None else [name for name, _ in drivers]
    table = GameConfig(players=len(bots), variants=tuple(variants), points=points)
    found.check_config(table)
    handlers = [in_process(driver) for _, driver in drivers]
    for seat, handle in enumerate(handlers):
        handle(messages.welcome(found.name, seat, seat_names, list(variants), config.limits))
    records = []
    for plan in match_plans(seed, matches, table):
        match = Match(found, table if plan.starter is None else replace(table, starter=plan.starter))
        while not match.over:
            records.append(_game(found, match, plan.seed, plan.match_id, handlers, seat_names, config))
        for handle in handlers:
            handle(messages.match_over(match.scores, match.winner, plan.match_id))
    return records


def _game(game: Any, match: Match, match_seed: str, match_id: str, handlers: list[Any], seat_names: list[str],
          config: RefereeConfig) -> dict[str, Any]:
    """One game of a match, its decisions asked of the bots as the referee asks them."""
    table = match.next_config()
    index = len(match.results)
    seed = f"{match_seed}:{index}"
    game_id = ids.game_id(match_id, index)
    state = game.new_game(table, SeededChance(seed))
    if config.uniform_timing:  # as the referee: the bots are asked cover decisions too
        state.cover_hidden_skips()
    n = table.players
    cursor, forced, extra = [0] * n, [[] for _ in range(n)], []
    for seat, handle in enumerate(handlers):
        handle(messages.game_start(game_id, index, seat, table.to_json(), match.scores, bot_seed(seed, seat), match_id))
    number = 0
    while (decision := state.to_move()) is not None:
        seat = decision.seat
        legal = state.legal_actions()
        if not config.uniform_timing and len(legal) == 1:  # the referee's rule for a forced move
            state.apply(legal[0])
            forced[seat].append(messages.forced(decision.kind, legal[0]))
            extra.append({"auto": True})
            continue
        number += 1
        request = {"type": "request", "id": number, "game_id": game_id, "decision": decision.kind,
                   "observation": state.observation(seat), "events": state.events(seat, cursor[seat]),
                   "forced": forced[seat], "legal": legal, "time_left_ms": config.limits.game_ms,
                   "deadline_ms": min(config.limits.decision_ms, config.limits.game_ms),
                   "wall_ms": min(config.limits.decision_wall_ms, config.limits.game_wall_ms)}
        cursor[seat], forced[seat] = len(state.log), []
        answers = handlers[seat](request)
        try:
            chosen = messages.accept_action(answers[0], number, legal)  # the referee's own rule
        except ProtocolFault as exc:
            raise IllegalAction(f"{seat_names[seat]} (seat {seat}) in {game_id}, decision {len(state.decisions)}: "
                                f"{exc.fault.message}") from None
        cover = state.covering  # asked like any decision, but none of the record's
        state.apply(chosen)
        if not cover:
            extra.append({})
    result = state.result()
    for seat, handle in enumerate(handlers):
        handle(messages.game_over(game_id, result.to_json(), state.events(seat, cursor[seat]), forced[seat], None))
    record = make_record(game, state, seats=seat_names, seed=seed,
                         match={"index": 0, "game": index, "scores": match.scores}, extra=extra)
    record["game_id"] = game_id
    if config.uniform_timing:
        record["covers"] = True
    r = record["result"]
    match.record(GameResult(tuple(r["places"]), r["winner"], r["capped"], tuple(r["forfeits"]), r["reason"]))
    return record
