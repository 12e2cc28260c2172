"""The small interface every game implements, and the plain data it exchanges.

Rules are a pure state machine: no I/O, no clocks, no global randomness.  Chance comes only
through the injected :class:`~arena.games.chance.Chance`.  States are mutable for speed
(``apply`` changes the state in place); ``clone()`` gives an independent copy for look-ahead.

Actions, observations and events are plain JSON data (dicts of str/int/bool/list), so they go
over the wire unchanged; each game's JSON Schema (:meth:`Game.schema`, the ``schema.json`` in its
folder) describes them as a bot sees them.  Legal-action dicts returned by an engine are shared
constants: treat them as read-only.
"""

from __future__ import annotations

import copy
import functools
import importlib
import importlib.resources
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from arena.games.errors import ConfigError, GameError, IllegalAction

if TYPE_CHECKING:
    from arena.games.chance import Chance

__all__ = ["Action", "ConfigError", "Decision", "Event", "Game", "GameConfig", "GameError", "GameResult",
           "IllegalAction", "Observation", "State", "check_absent", "rank_places", "redact"]

Action = dict[str, Any]
Observation = dict[str, Any]
Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything that fixes a game besides chance and the players' decisions.

    ``starter`` is the seat that starts (``None``: drawn at random, a recorded chance event).
    ``points`` is the score that ends a match (a series of games at one table, R20 of Powder
    Keg); ``max_decisions`` and ``max_rounds`` are the safety cap that ends any game that would
    otherwise run too long.  ``None`` means the game's own default.
    """

    players: int
    variants: tuple[str, ...] = ()
    starter: int | None = 0
    points: int | None = None
    max_decisions: int | None = None
    max_rounds: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "variants": list(self.variants),
            "starter": self.starter,
            "points": self.points,
            "max_decisions": self.max_decisions,
            "max_rounds": self.max_rounds,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GameConfig":
        return cls(
            players=int(data["players"]),
            variants=tuple(data.get("variants", ())),
            starter=data.get("starter", 0),
            points=data.get("points"),
            max_decisions=data.get("max_decisions"),
            max_rounds=data.get("max_rounds"),
        )


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must decide now, and which decision point of the rules it is (e.g. ``RD1``)."""

    seat: int
    kind: str


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a finished game ranked its seats.

    ``places[s]`` is seat ``s``'s finishing place, 1 = best; equal places are ties.  ``winner``
    is the seat that scores the game's point, or ``None`` when nobody does (a capped game that
    ends in a tie at the top).  ``forfeits`` lists the seats that forfeited (they rank below
    every seat that did not).
    """

    places: tuple[int, ...]
    winner: int | None
    capped: bool = False
    forfeits: tuple[int, ...] = ()
    reason: str = "normal"

    def to_json(self) -> dict[str, Any]:
        return {
            "places": list(self.places),
            "winner": self.winner,
            "capped": self.capped,
            "forfeits": list(self.forfeits),
            "reason": self.reason,
        }


def rank_places(keys: list[tuple]) -> tuple[int, ...]:
    """Competition ranking ("1224"): a lower key finishes better; equal keys tie."""
    order = sorted(range(len(keys)), key=keys.__getitem__)
    places = [0] * len(keys)
    for position, seat in enumerate(order):
        if position and keys[seat] == keys[order[position - 1]]:
            places[seat] = places[order[position - 1]]
        else:
            places[seat] = position + 1
    return tuple(places)


def check_absent(state: State, reasons: dict[int, str], active: list[int]) -> None:
    """Raise :class:`GameError` unless :meth:`State.forfeit_absent` may remove these seats now:
    the game has not had a decision yet and every seat named is still in it."""
    if state.to_move() is None:
        raise GameError("the game is over")
    if state.decisions:
        raise GameError("absent seats can only leave before the first decision")
    for seat in reasons:
        if seat not in active:
            raise GameError(f"seat {seat} is not in the game")


def redact(event: Event, seat: int | None) -> Event:
    """The view of one logged event for ``seat`` (``None``: a spectator who sees only public parts).

    An event's hidden fields live under ``"private": {"to": [seats...], field: value...}``;
    the seats in ``to`` see those fields merged into the event, everyone else sees the event
    without them.
    """
    private = event.get("private")
    if private is None:
        return event
    public = event.copy()  # same keys in the same order, less "private"
    del public["private"]
    if seat is not None and seat in private["to"]:
        for k, v in private.items():
            if k != "to":  # a public "to" (a Powder Keg ``give``) is never overwritten
                public[k] = v
    return public


class State(ABC):
    """One game in progress.  Subclasses implement the rules; the attributes below are shared.

    ``log`` holds every event as it happened, hidden parts included (see :func:`redact`);
    ``decisions`` holds every decision as ``(seat, action)``, including ones with a single
    legal action.
    """

    __slots__ = ()

    game: ClassVar[str]
    config: GameConfig
    chance: Chance
    log: list[Event]
    decisions: list[tuple[int, Action]]

    @abstractmethod
    def to_move(self) -> Decision | None:
        """The pending decision, or ``None`` once the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """The legal actions of the pending decision, in a fixed (deterministic) order."""

    @abstractmethod
    def apply(self, action: Action) -> None:
        """Apply the pending decision's action, then run every automatic step up to the next
        decision or the end.  Raises :class:`IllegalAction` for anything not offered."""

    @abstractmethod
    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now, built from a whitelist of the information model."""

    @abstractmethod
    def forfeit(self, seat: int, reason: str = "forfeit") -> None:
        """Remove ``seat`` from the game (a harness decision, e.g. a bot fault).

        Only the seat that must decide now can forfeit.  The seat is eliminated at once and
        ranks below every seat that did not forfeit; the game goes on for the others."""

    @abstractmethod
    def forfeit_absent(self, reasons: dict[int, str]) -> None:
        """Remove the seats whose bots never joined this game (``{seat: reason}``), together,
        before the first decision.

        A bot that failed to start (or was disqualified) must not outlast the bots that play: a
        seat that only forfeited at its first turn could win a game its opponents forfeited
        earlier.  The seats forfeit as :meth:`forfeit` describes; if one seat is left it wins,
        and if none is left every seat ties (no winner).  Recorded as forfeits with
        ``"absent": true``."""

    @abstractmethod
    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if the state breaks a rule that must always hold
        (card conservation, meter bounds, the King count...).  Used by the property tests."""

    @property
    def terminal(self) -> bool:
        return self.to_move() is None

    def cover_hidden_skips(self) -> None:
        """From now on, also stop where the rules pass over a seat for a reason the other seats
        can not see, as a *cover decision* of that seat with one legal action.

        Powder Keg polls only the holders of a Queen for a Veto: a referee that asked only them
        would tell every bot, by how long the others took, who holds one.  With covers, every
        active seat is asked in the poll's order, those without a Queen with ``pass`` as their
        only action.  A cover is no decision of the rules: its action changes nothing but moves
        the game on, it is not in :attr:`decisions` (nor counted towards the safety cap), so a
        game's record is the same with covers or without, and replays without them.  A game
        whose skips are all public (the default) has nothing to cover."""

    @property
    def covering(self) -> bool:
        """Whether the pending decision is a cover (see :meth:`cover_hidden_skips`)."""
        return False

    @abstractmethod
    def result(self) -> GameResult:
        """Finishing places; only valid once the game is over."""

    @abstractmethod
    def clone(self, chance: Chance | None = None) -> "State":
        """An independent copy (for look-ahead), optionally with another chance source."""

    def pile_top_first(self) -> list[str]:
        """The draw pile's cards as codes, from the top down: hidden from every seat, shown by
        the replay viewer's omniscient view.  This default reads a ``pile`` of codes whose top
        is its last item; a game that keeps its pile otherwise says so here."""
        return [str(c) for c in reversed(getattr(self, "pile", []))]

    def events(self, seat: int | None, start: int = 0) -> list[Event]:
        """The log from ``start`` on as ``seat`` may see it.

        The list is new; an event without a private part is the logged dict itself (as
        :func:`redact` returns it), so treat events as read-only.
        """
        out = self.log[start:]
        for i, event in enumerate(out):
            if "private" in event:  # most events have none: no call for them
                out[i] = redact(event, seat)
        return out


@functools.cache
def _game_schema(package: str) -> dict[str, Any]:
    """The ``schema.json`` shipped in a game's package, read once (a package resource, so it is
    found in an installed wheel as in a checkout)."""
    try:
        text = importlib.resources.files(package).joinpath("schema.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GameError(f"the game in {package} ships no schema.json") from None
    return json.loads(text)


@dataclass(frozen=True)
class Game:
    """A game's registry entry: its name, limits, variants, decision points, policies and how to
    start a game.  Each game's package exports one as ``GAME``; :mod:`arena.games` finds them."""

    name: str
    title: str
    min_players: int
    max_players: int
    variants: tuple[str, ...]
    default_points: int
    state_class: type[State] = field(repr=False)
    decisions: tuple[str, ...] = ()  # the rules' decision points (Decision.kind), e.g. ("RD1", "RD2")
    # The module of the game's built-in policies (a dict POLICIES of name -> factory), imported
    # only when a policy is wanted: a referee never needs them.
    policies_module: str | None = field(default=None, repr=False)
    # Names of the cards a viewer should explain, by card code, e.g. {"S": "Spark (1 or 11)"}:
    # the replay viewer's tooltips.  Codes left out are plain number cards.
    card_names: Mapping[str, str] = field(default_factory=dict, repr=False, hash=False, compare=False)

    def policies(self) -> dict[str, Any]:
        """This game's own built-in policies by name (arena.games.policy adds ``random``, which
        every game has)."""
        if self.policies_module is None:
            return {}
        return dict(importlib.import_module(self.policies_module).POLICIES)

    def schema(self) -> dict[str, Any]:
        """This game's JSON Schema (draft-07): its observation, actions, events and config as a bot
        sees them.  It is the ``schema.json`` beside the game's rules module, so a new game ships
        its own file and nothing else names it; each call returns a fresh copy."""
        return copy.deepcopy(_game_schema(importlib.import_module(self.state_class.__module__).__package__))

    def check_config(self, config: GameConfig) -> None:
        """Raise :class:`ConfigError` with a message a user can act on."""
        if not self.min_players <= config.players <= self.max_players:
            raise ConfigError(
                f"{self.name} is for {self.min_players}-{self.max_players} players, not {config.players}"
            )
        unknown = [v for v in config.variants if v not in self.variants]
        if unknown:
            allowed = ", ".join(self.variants) or "none"
            raise ConfigError(f"{self.name} has no variant {unknown[0]!r} (variants: {allowed})")
        if len(set(config.variants)) != len(config.variants):
            raise ConfigError("a variant is named twice")
        if config.starter is not None and not 0 <= config.starter < config.players:
            raise ConfigError(f"starter must be a seat from 0 to {config.players - 1} (or none: random)")
        if config.points is not None and config.points < 1:
            raise ConfigError("points must be at least 1")

    def new_game(self, config: GameConfig, chance: Chance) -> State:
        """Deal a new game (consuming chance events for the deal)."""
        self.check_config(config)
        return self.state_class.new(config, chance)  # type: ignore[attr-defined]

    def match_points(self, config: GameConfig) -> int:
        return config.points if config.points is not None else self.default_points
