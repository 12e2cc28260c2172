"""Tournament files (TOML): parsed into a :class:`TournamentSpec`, with errors that name the field.

Example::

    name = "quickstart-reactor"
    game = "reactor"
    format = "round-robin"      # or "swiss"
    seats = 4                   # seats per table, 2-6 (within the game's limits)
    games = 1                   # round-robin only: matches per table and seat rotation
    rounds = 4                  # swiss: rounds (default: enough for the field)
    # min_seats = 3             # swiss: tables may seat this few, so that fewer bots sit out
    rotations = true            # play every cyclic rotation of each table's seats (the default for both formats)
    duplicate = true            # the rotations of a table share the deal
    seed = 2026
    variants = []               # e.g. ["short-hands"] for Powder Keg
    # points = 3                # points that end a match (Powder Keg default 3, Reactor 1)
    # concurrent = 16           # games of a lineup in play at once, for bots that offer it (1-64)
    # faults_to_disqualify = 3  # faulty games in a row that put a bot out of the rest of a match

    [time]                      # milliseconds; decision and game are CPU time (the bot's processes')
    decision = 2000             # per decision
    game = 60000                # per game, each bot's decisions together
    startup = 10000             # wall-clock time, from the start of a bot to its hello
    # wall_factor = 5           # also: each request answered within wall_factor x decision of
                                # wall-clock time from its sending, a game within wall_factor x game

    [sandbox]
    mode = "auto"               # auto, strict or none
    memory_mb = 1024

    [[bots]]
    name = "random"
    path = "../bots/random_bot.py"   # relative to this file; or leave out path for a registered bot

``[time]``: ``decision`` and ``game`` are CPU time, the time the bot's processes used between a
request and its answer, so that a bot on a loaded machine is not charged for time it did not get;
``wall_factor`` (1-100, default 5) times each is the wall-clock limit that still bounds a bot that
waits or sleeps (protocol/README.md, "Time limits").
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ConfigError, UnknownBot
from arena.sandbox import Mode
from arena.games import REGISTRY
from arena.games.base import GameConfig
from arena.referee import DEFAULT_CONCURRENT, DEFAULT_FAULTS_TO_DISQUALIFY
from arena.bots.package import command_template
from arena.core.names import NAME_RULE, valid_name
from protocol.messages import MAX_CONCURRENT, Limits, MAX_DECISION_MS, MAX_GAME_MS, MAX_STARTUP_MS, MAX_WALL_FACTOR

FORMATS = ("round-robin", "swiss")
TOP_KEYS = {"name", "game", "format", "seats", "games", "rounds", "rotations", "duplicate", "seed",
            "variants", "points", "bots", "time", "sandbox", "min_seats", "concurrent", "faults_to_disqualify"}
# The defaults are the protocol's own (protocol.messages.Limits), which bots are told in ``welcome``.
TIME_KEYS = {"decision": Limits().decision_ms, "game": Limits().game_ms, "startup": Limits().startup_ms}
TIME_MAX = {"decision": MAX_DECISION_MS, "game": MAX_GAME_MS, "startup": MAX_STARTUP_MS}
# Kept in ``time`` only when given: a tournament stored before the key existed still resumes.
OPTIONAL_TIME_KEYS = {"wall_factor": MAX_WALL_FACTOR}
SANDBOX_KEYS = {"mode", "memory_mb", "cpu_seconds", "processes", "file_size_mb", "open_files"}
# Upper bounds: far past any real need, and within what the kernel's limits and prlimit take.
SANDBOX_MAX = {"memory_mb": 1 << 20, "cpu_seconds": 7 * 86_400, "processes": 4096, "file_size_mb": 1 << 20,
               "open_files": 1 << 16}
MAX_GAMES, MAX_ROUNDS, MAX_POINTS = 10_000, 1_000, 1_000


@dataclass(frozen=True, slots=True)
class BotEntry:
    """A bot of the tournament: a registered name, or a name with a path to register."""

    name: str
    path: Path | None = None


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """A validated tournament definition; ``to_json`` is what storage keeps (and compares on resume)."""

    name: str
    game: str
    format: str
    seats: int
    bots: tuple[BotEntry, ...]
    seed: str
    games: int = 1
    rounds: int | None = None
    rotations: bool = True
    duplicate: bool = True
    variants: tuple[str, ...] = ()
    points: int | None = None
    min_seats: int | None = None
    time: dict[str, int] = field(default_factory=lambda: dict(TIME_KEYS))
    sandbox: dict[str, Any] = field(default_factory=lambda: {"mode": "auto"})
    concurrent: int = DEFAULT_CONCURRENT
    faults_to_disqualify: int = DEFAULT_FAULTS_TO_DISQUALIFY

    def game_config(self) -> GameConfig:
        return GameConfig(players=self.seats, variants=self.variants, points=self.points)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "game": self.game, "format": self.format, "seats": self.seats,
            "bots": [{"name": b.name, **({"path": str(b.path)} if b.path else {})} for b in self.bots],
            "seed": self.seed, "games": self.games, "rounds": self.rounds, "rotations": self.rotations,
            "duplicate": self.duplicate, "variants": list(self.variants), "points": self.points,
            "min_seats": self.min_seats, "time": self.time, "sandbox": self.sandbox,
            # Only when set: a tournament stored before the field existed still resumes.
            **({"concurrent": self.concurrent} if self.concurrent != DEFAULT_CONCURRENT else {}),
            **({"faults_to_disqualify": self.faults_to_disqualify}
               if self.faults_to_disqualify != DEFAULT_FAULTS_TO_DISQUALIFY else {}),
        }


def _fail(path: Path, field_name: str, message: str) -> ConfigError:
    return ConfigError(f"{path}: field '{field_name}': {message}")


def _int(path: Path, data: dict[str, Any], key: str, low: int, high: int | None = None,
         table: str = "") -> int | None:
    """``data[key]`` as a whole number within bounds, or None if absent; ``table`` prefixes the
    field's name in errors (``time.decision``)."""
    if key not in data:
        return None
    value = data[key]
    name = f"{table}.{key}" if table else key
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(path, name, f"must be a whole number, not {value!r}")
    if value < low or (high is not None and value > high):
        limit = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise _fail(path, name, f"must be {limit}, not {value}")
    return value


def _choice(path: Path, field_name: str, value: Any, allowed: Any) -> str:
    """A string from ``allowed``; the type is checked first, so a list or a table is an error
    like any other wrong value (never ``unhashable type``)."""
    if not isinstance(value, str) or value not in allowed:
        raise _fail(path, field_name, f"must be one of {', '.join(allowed)}, not {value!r}")
    return value


def _bool(path: Path, data: dict[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise _fail(path, key, f"must be true or false, not {value!r}")
    return value


def load_tournament(path: str | Path) -> TournamentSpec:
    """Read and validate a tournament file; every problem is a :class:`ConfigError` naming the field."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{path} is a folder; give a tournament file, e.g. tournaments/quickstart-reactor.toml")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (some Windows editors) is fine
    except FileNotFoundError:
        raise ConfigError(f"no tournament file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse_tournament(data, path)


def parse_tournament(data: dict[str, Any], path: Path) -> TournamentSpec:
    """Validate parsed TOML (see :func:`load_tournament`)."""
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise _fail(path, unknown[0], f"unknown field (allowed: {', '.join(sorted(TOP_KEYS))})")
    for key in ("name", "game", "bots"):
        if key not in data:
            raise _fail(path, key, "is required")
    name = data["name"]
    if not valid_name(name):
        raise _fail(path, "name", f"must be {NAME_RULE}, not {name!r}")
    game = REGISTRY[_choice(path, "game", data["game"], REGISTRY)]
    fmt = _choice(path, "format", data.get("format", "round-robin"), FORMATS)

    bots_data = data["bots"]
    if not isinstance(bots_data, list) or not bots_data:
        raise _fail(path, "bots", "must be a list of [[bots]] tables, each with a name and optionally a path")
    bots: list[BotEntry] = []
    for i, entry in enumerate(bots_data):
        where = f"bots[{i}]"
        if not isinstance(entry, dict):
            raise _fail(path, where, "must be a table with name (and optionally path)")
        extra = sorted(set(entry) - {"name", "path"})
        if extra:
            raise _fail(path, f"{where}.{extra[0]}", "unknown field (allowed: name, path)")
        if "name" not in entry:
            raise _fail(path, f"{where}.name", f"is required ({NAME_RULE})")
        bot_name = entry["name"]
        if not valid_name(bot_name):
            raise _fail(path, f"{where}.name", f"must be {NAME_RULE}, not {bot_name!r}")
        bot_path = None
        if "path" in entry:
            if not isinstance(entry["path"], str):
                raise _fail(path, f"{where}.path", "must be a string")
            bot_path = (path.parent / entry["path"]).resolve()
            if not bot_path.exists():
                raise _fail(path, f"{where}.path", f"no such file: {bot_path} (a bot already registered, or "
                            "in a tournament already begun, plays its stored copy if the file leaves out its path)")
            if bot_path.is_dir():
                raise _fail(path, f"{where}.path", f"{bot_path} is a directory; give the bot's script or program")
            try:
                command_template(bot_path)
            except UnknownBot as exc:  # a file arena can not run (a README, say)
                raise _fail(path, f"{where}.path", str(exc)) from None
        bots.append(BotEntry(bot_name, bot_path))
    names = [b.name for b in bots]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise _fail(path, "bots", f"bot {dup!r} is listed twice")

    seats = _int(path, data, "seats", 2, 6)
    if seats is None and len(bots) < game.min_players:  # else the seats check below names the problem
        raise _fail(path, "bots", f"a {game.name} tournament needs at least {game.min_players} bots, not {len(bots)}")
    seats = seats or min(len(bots), game.max_players)
    if not game.min_players <= seats <= game.max_players:
        raise _fail(path, "seats", f"{game.name} is for {game.min_players}-{game.max_players} players, not {seats}")
    if seats > len(bots):
        raise _fail(path, "seats", f"{seats} seats per table but only {len(bots)} bots")
    games = _int(path, data, "games", 1, MAX_GAMES) or 1
    rounds = _int(path, data, "rounds", 1, MAX_ROUNDS)
    min_seats = _int(path, data, "min_seats", 2, 6)
    if fmt == "round-robin" and rounds is not None:
        raise _fail(path, "rounds", "applies to swiss only (round-robin uses games)")
    if fmt == "round-robin" and min_seats is not None:
        raise _fail(path, "min_seats", "applies to swiss only (a round-robin table always has seats bots)")
    if fmt == "swiss" and games != 1:
        raise _fail(path, "games", "applies to round-robin only (a swiss plays one deal per table per round)")
    if min_seats is not None and (min_seats > seats or min_seats < game.min_players):
        raise _fail(path, "min_seats", f"must be from {game.min_players} to seats ({seats})")
    points = _int(path, data, "points", 1, MAX_POINTS)
    concurrent = _int(path, data, "concurrent", 1, MAX_CONCURRENT) or DEFAULT_CONCURRENT
    faults_to_disqualify = _int(path, data, "faults_to_disqualify", 1, 1000) or DEFAULT_FAULTS_TO_DISQUALIFY

    variants = data.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise _fail(path, "variants", "must be a list of variant names")
    try:
        for size in sorted({seats, min_seats or seats}):  # a swiss may seat min_seats at a table
            game.check_config(GameConfig(players=size, variants=tuple(variants), points=points))
    except ConfigError as exc:
        raise _fail(path, "variants", str(exc)) from None

    seed = data.get("seed", 0)
    if not isinstance(seed, (int, str)) or isinstance(seed, bool):
        raise _fail(path, "seed", "must be a number or a string")

    time_data = data.get("time", {})
    if not isinstance(time_data, dict):
        raise _fail(path, "time", "must be a table with decision, game and startup (milliseconds)")
    extra = sorted(set(time_data) - set(TIME_KEYS) - set(OPTIONAL_TIME_KEYS))
    if extra:
        raise _fail(path, f"time.{extra[0]}", f"unknown field (allowed: {', '.join([*TIME_KEYS, *OPTIONAL_TIME_KEYS])})")
    time = {k: _int(path, time_data, k, 1, TIME_MAX[k], table="time") or default for k, default in TIME_KEYS.items()}
    for key, high in OPTIONAL_TIME_KEYS.items():
        if (value := _int(path, time_data, key, 1, high, table="time")) is not None:
            time[key] = value

    sandbox_data = data.get("sandbox", {})
    if not isinstance(sandbox_data, dict):
        raise _fail(path, "sandbox", "must be a table")
    extra = sorted(set(sandbox_data) - SANDBOX_KEYS)
    if extra:
        raise _fail(path, f"sandbox.{extra[0]}", f"unknown field (allowed: {', '.join(sorted(SANDBOX_KEYS))})")
    mode = _choice(path, "sandbox.mode", sandbox_data.get("mode", Mode.AUTO.value), [m.value for m in Mode])
    sandbox: dict[str, Any] = {"mode": mode}
    for key in sorted(SANDBOX_KEYS - {"mode"}):
        value = _int(path, sandbox_data, key, 1, SANDBOX_MAX[key], table="sandbox")
        if value is not None:
            sandbox[key] = value

    return TournamentSpec(
        name=name, game=game.name, format=fmt, seats=seats, bots=tuple(bots), seed=str(seed),
        games=games, rounds=rounds, rotations=_bool(path, data, "rotations", True),
        duplicate=_bool(path, data, "duplicate", True), variants=tuple(variants), points=points,
        min_seats=min_seats, time=time, sandbox=sandbox, concurrent=concurrent,
        faults_to_disqualify=faults_to_disqualify,
    )
