"""In-process self-play: games between built-in policies, written as JSON-lines records.

Used to test engines and to measure bots without any process or socket in the way.  Same
arguments, same output, byte for byte: every game's chance and every bot's choices come from
string seeds derived from the root seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.games import ConfigError, GameConfig, SeededChance, get_game
from arena.games.base import Game, State
from arena.games.match import Match
from arena.games.record import make_record
from arena.games.policy import Policy, make_policy, policy_names


@dataclass(frozen=True, slots=True)
class SelfPlaySpec:
    """What to play: ``matches`` matches (a Reactor match is one game) at one table."""

    game: str
    players: int
    matches: int
    seed: int | str
    variants: tuple[str, ...] = ()
    bots: tuple[str, ...] = ("random",)
    points: int | None = None


def play_game(state: State, policies: list[Policy]) -> State:
    """Play a dealt game to the end with in-process policies.

    A policy with ``observe_events(events)`` is fed, before each of its decisions, the events
    its seat was shown since its last one: what the referee sends a bot program with each
    request (``arena.bots.program``), so a bot plays the same in-process and as a program.
    """
    cursors = [0] * len(policies)
    observers = [getattr(policy, "observe_events", None) for policy in policies]
    while (decision := state.to_move()) is not None:
        seat = decision.seat
        policy = policies[seat]
        observe = observers[seat]
        if observe is not None:
            observe(state.events(seat, cursors[seat]))
            cursors[seat] = len(state.log)
        legal = state.legal_actions()
        observation = state.observation(seat) if policy.needs_observation else None
        state.apply(policy.act(observation, legal))
    return state


def seat_bots(spec: SelfPlaySpec) -> list[str]:
    """One bot name per seat: a single name fills the table, otherwise names are repeated in turn."""
    return [spec.bots[s % len(spec.bots)] for s in range(spec.players)]


def check_spec(spec: SelfPlaySpec) -> Game:
    """The spec's game, or a :class:`ConfigError` for what it cannot play: a game, table or
    variant the rules do not have, a built-in bot the game does not have, or more bots than
    seats (the extra ones would be dropped silently)."""
    game = get_game(spec.game)
    game.check_config(GameConfig(players=spec.players, variants=tuple(spec.variants), points=spec.points))
    names = policy_names(game.name)
    for name in spec.bots:
        if name not in names:
            raise ConfigError(f"no built-in bot {name!r} (bots: {', '.join(names)})")
    if len(spec.bots) > spec.players:  # as the CLI's users name them: one --bot option each
        raise ConfigError(f"{len(spec.bots)} --bot options for {spec.players} seats; give at most one per seat")
    return game


def iter_records(spec: SelfPlaySpec) -> Iterator[dict[str, Any]]:
    """Play the spec and yield one record per game."""
    game = check_spec(spec)
    base = GameConfig(players=spec.players, variants=tuple(spec.variants), points=spec.points)
    names = seat_bots(spec)
    for m in range(spec.matches):
        match = Match(game, base)
        while not match.over:
            index = len(match.results)
            # The seat count is part of the seed: the same --seed at another --players deals other
            # deck orders (Reactor shuffles the whole deck whatever the table, so it dealt the same).
            seed = f"{spec.seed}:p{spec.players}:{m}:{index}"
            policies = [
                make_policy(game.name, name, random.Random(f"{seed}:seat{s}"))
                for s, name in enumerate(names)
            ]
            state = game.new_game(match.next_config(), SeededChance(seed))
            play_game(state, policies)
            info = {"index": m, "game": index, "scores": match.scores}
            match.record(state.result())
            yield make_record(game, state, seats=names, seed=seed, match=info)
