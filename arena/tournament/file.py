"""Tournament files (TOML): parsed into a :class:`TournamentSpec`, with errors that name the field.

Every field is declared once, below: the common ones in :data:`HEAD` and :data:`TAIL`, and each
format's own (``games`` for a round-robin, ``rounds`` and ``min_seats`` for a Swiss) with the
format, read between the two.  :func:`parse_tournament` is a loop over them; the example at the
end of this docstring is made from them too (a field in a comment may be left out: the value
shown is its default, or an example).

``[time]``: ``decision`` and ``game`` are CPU time, the time the bot's processes used between a
request and its answer, so that a bot on a loaded machine is not charged for time it did not get;
``wall_factor`` (1-100, default 5) times each is the wall-clock limit, from the request, that still
bounds a bot that waits or sleeps (protocol/README.md, "Time limits").
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.games import REGISTRY as GAMES
from arena.games import Game, GameConfig
from arena.referee import RefereeConfig
from arena.sandbox import Mode, Resources
from arena.tournament.fields import (
    Bots,
    Field,
    FieldError,
    Flag,
    Name,
    OneOf,
    Reading,
    Real,
    Seed,
    Table,
    Whole,
    Words,
    documented,
)
from arena.tournament.formats import MAX_SEATS, MIN_SEATS
from arena.tournament.formats import REGISTRY as FORMATS
from arena.tournament.formats import Format
from arena.ratings.confidence import ALPHA, DELTA
from arena.tournament.spec import MAX_STOP_GAMES, STOP_RULES, BotEntry, TournamentSpec
from protocol.messages import (
    DEFAULT_WALL_FACTOR,
    MAX_CONCURRENT,
    MAX_DECISION_MS,
    MAX_GAME_MS,
    MAX_STARTUP_MS,
    MAX_WALL_FACTOR,
    Limits,
)

__all__ = ["BotEntry", "TournamentSpec", "comparable", "growth", "load_tournament", "parse_tournament"]

MAX_POINTS = 1_000
MAX_FAULTS = 1_000
# Upper bounds of the sandbox's limits: far past any real need, and within what the kernel's
# limits and prlimit take.
SANDBOX_MAX = {"memory_mb": 1 << 20, "cpu_seconds": 7 * 86_400, "processes": 4096, "file_size_mb": 1 << 20,
               "open_files": 1 << 16}


def _default(owner: type, name: str) -> Any:
    """The default of a dataclass's field: the defaults of a tournament's settings are their owners'."""
    return next(f.default for f in dataclasses.fields(owner) if f.name == name)


# --------------------------------------------------------------------------- rules across fields


def _every_bot(reading: Reading) -> int:
    """Seats when left out: every bot at one table, as far as the game goes."""
    game, bots = reading.game, reading.values["bots"]
    if len(bots) < game.min_players:  # else the seats check names the problem
        raise FieldError("bots", f"a {game.name} tournament needs at least {game.min_players} bots, not {len(bots)}")
    return min(len(bots), game.max_players)


def _seats_fit(seats: int, reading: Reading) -> None:
    game, bots = reading.game, reading.values["bots"]
    if not game.min_players <= seats <= game.max_players:
        raise FieldError("seats", f"{game.name} is for {game.min_players}-{game.max_players} players, not {seats}")
    if seats > len(bots):
        raise FieldError("seats", f"{seats} seats per table but only {len(bots)} bots")


def _variants_playable(variants: tuple[str, ...], reading: Reading) -> None:
    """The game takes the variants and points at every table size the format seats."""
    values = reading.values
    try:
        for size in sorted(FORMATS[values["format"]].seatings(values)):
            reading.game.check_config(GameConfig(players=size, variants=variants, points=values["points"]))
    except ConfigError as exc:
        raise FieldError("variants", str(exc)) from None


def _bot_names(value: Any, game: Game, seats: Any) -> Any:
    """The bots by name only, in any order (the scheduler sorts the field): a project moved or
    copied elsewhere resumes its tournament (the bots are held to their stored content)."""
    if isinstance(value, list):
        return sorted(({k: v for k, v in entry.items() if k not in ("path", "command")} for entry in value), key=str)
    return value


def _clocks(value: Any, game: Game, seats: Any) -> Any:
    """A tournament stored before ``wall_factor`` existed played with its default."""
    if isinstance(value, dict):
        return {"wall_factor": DEFAULT_WALL_FACTOR, **value}
    return value


def _resources(value: Any, game: Game, seats: Any) -> Any:
    if isinstance(value, dict):
        return {"mode": Mode.AUTO.value, **{f.name: f.default for f in dataclasses.fields(Resources)}, **value}
    return value


def _stop_complete(value: dict[str, Any], reading: Reading) -> None:
    if value.get("rule") == "settled" and "max_games" not in value:
        raise FieldError("stop.max_games", 'is required with rule = "settled" (the most games to play)')


# --------------------------------------------------------------------------- the fields

HEAD: tuple[Field, ...] = (
    Field("name", Name(), "the tournament's name, by which the database keeps it", required=True,
          example='"quickstart-reactor"'),
    Field("game", OneOf(tuple(GAMES)), "the game", required=True, example='"reactor"'),
    Field("format", OneOf(tuple(FORMATS)), "how the tables are drawn", default="round-robin"),
    Field("bots", Bots(), "the bots: [[bots]] tables, below", required=True, compare=_bot_names),
    Field("seats", Whole(MIN_SEATS, MAX_SEATS), "seats per table, within the game's limits; by default every bot, "
          "as far as the game goes", fill=_every_bot, check=_seats_fit, example="3"),
)
# The format's own fields are read here: they may depend on the head (min_seats on seats), and
# the tail on them (the variants are checked at every table size the format seats).
TAIL: tuple[Field, ...] = (
    Field("points", Whole(1, MAX_POINTS), "points that end a match; by default the game's own: "
          + ", ".join(f"{g.name} {g.default_points}" for g in GAMES.values()), example="3",
          compare=lambda value, game, seats: game.default_points if value is None else value),
    Field("concurrent", Whole(1, MAX_CONCURRENT), "games of a lineup in play at once, for bots that offer it",
          default=_default(RefereeConfig, "concurrent"), run_only=True),
    Field("faults_to_disqualify", Whole(1, MAX_FAULTS), "faulty games in a row that put a bot out of the rest "
          "of a match", default=_default(RefereeConfig, "faults_to_disqualify")),
    Field("variants", Words("variant names"), 'variants of the game, e.g. ["short-hands"] for powder-keg', default=(),
          check=_variants_playable, compare=lambda value, game, seats: sorted(value) if isinstance(value, list) else value),
    Field("seed", Seed(), "every deal and seat draw follows from it", default="0", example="2026"),
    # decision and game are CPU time (the bot's processes'), so that a bot on a loaded machine is
    # not charged for time it did not get; wall_factor times each bounds it in wall-clock time
    # from the request, for a bot that waits or sleeps (protocol/README.md, "Time limits").
    # wall_factor has no default here: kept in the spec only when given, so that a tournament
    # stored before it existed still resumes.
    Field("time", Table((
        Field("decision", Whole(1, MAX_DECISION_MS), "a bot's CPU time for one decision",
              default=Limits().decision_ms),
        Field("game", Whole(1, MAX_GAME_MS), "a bot's CPU time for one game, its decisions together",
              default=Limits().game_ms),
        Field("startup", Whole(1, MAX_STARTUP_MS), "wall-clock time from a bot's start to its hello",
              default=Limits().startup_ms),
        Field("wall_factor", Whole(1, MAX_WALL_FACTOR), "wall-clock limits: wall_factor x decision from each "
              f"request, wall_factor x game a game; by default {DEFAULT_WALL_FACTOR}",
              example=str(DEFAULT_WALL_FACTOR)),
    ), "a table with decision, game, startup (milliseconds) and wall_factor"),
        "milliseconds; the protocol's own defaults", compare=_clocks),
    Field("sandbox", Table((
        Field("mode", OneOf(tuple(m.value for m in Mode)), "how much sandbox a bot must get", default=Mode.AUTO.value),
        *(Field(key, Whole(1, high), help, example=str(_default(Resources, key))) for key, high, help in (
            ("memory_mb", SANDBOX_MAX["memory_mb"], "address space of each bot process, MiB"),
            ("cpu_seconds", SANDBOX_MAX["cpu_seconds"], "CPU time of each bot process"),
            ("processes", SANDBOX_MAX["processes"], "processes and threads of a bot"),
            ("file_size_mb", SANDBOX_MAX["file_size_mb"], "largest file a bot may write, MiB"),
            ("open_files", SANDBOX_MAX["open_files"], "files a bot process may hold open"))),
    ), "a table"), "what bots may use", compare=_resources),
    Field("rotations", Flag(), "play every cyclic rotation of each table's seats", default=True),
    Field("duplicate", Flag(), "the rotations of a table share the deal", default=True),
    Field("stop", Table((
        Field("rule", OneOf(STOP_RULES), "none: play the schedule; settled: play in whole blocks (a round-robin's "
              "repetitions, a Swiss's rounds) until every neighbouring pair is settled, or max_games",
              default="none"),
        Field("alpha", Real(0.0, 1.0), "the chance of stopping with some pair at least delta apart in the wrong "
              "order", default=ALPHA),
        Field("delta", Real(0.0, 5.0), "mean places: pairs closer than this may come out either way, or tied",
              default=DELTA),
        Field("max_games", Whole(1, MAX_STOP_GAMES), "with settled: the most games, at the end of a block; it "
              "replaces games and rounds as the length (raise it to extend a stopped tournament)",
              example="2000"),
    ), "a table with rule, alpha, delta and max_games"), "when to stop early (arena run --stop, --max-games)",
          check=_stop_complete, run_only=True),
)
TOP: dict[str, Field] = {f.name: f for f in (*HEAD, *TAIL)}


def _owners() -> dict[str, list[type[Format]]]:
    """Each format's own field, by name, with the formats that take it."""
    owners: dict[str, list[type[Format]]] = {}
    for fmt in FORMATS.values():
        for f in fmt.fields:
            owners.setdefault(f.name, []).append(fmt)
    return owners


OWNERS = _owners()
# Spellings a file may use for a field, by the field's name: ``matches`` (as the command line
# says) for what is stored as ``games``, its old spelling, which keeps working.
SPELLINGS = {"matches": "games"}
ALLOWED = sorted({*TOP, *OWNERS, *SPELLINGS})
RUN_ONLY_FIELDS = frozenset(f.name for f in TOP.values() if f.run_only)


def _format_field(name: str) -> Field:
    return next(f for f in OWNERS[name][0].fields if f.name == name)


# --------------------------------------------------------------------------- reading


def load_tournament(path: str | Path) -> TournamentSpec:
    """Read and validate a tournament file; every problem is a :class:`ConfigError` naming the field."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{path} is a folder; give a tournament file, e.g. tournaments/quickstart-reactor.toml")
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM (some Windows editors) is fine
    except FileNotFoundError:
        raise ConfigError(f"no tournament file at {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # ValueError: a NUL in the path
        raise ConfigError(f"cannot read {path}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and tables by recursion
        raise ConfigError(f"{path}: not a tournament file: its arrays or tables are nested too deep") from None
    try:
        return parse_tournament(data, path)
    except RecursionError:  # a value nested just under tomllib's limit, shown in a message
        raise ConfigError(f"{path}: a value is nested too deep (no field of a tournament file nests)") from None


def parse_tournament(data: dict[str, Any], path: Path) -> TournamentSpec:
    """Validate parsed TOML (see :func:`load_tournament`)."""
    written = {}
    for spelling, name in SPELLINGS.items():
        if spelling in data:
            if name in data:
                raise ConfigError(f"{path}: field '{spelling}': give {spelling} or its old spelling {name}, not both")
            data = {**{k: v for k, v in data.items() if k != spelling}, name: data[spelling]}
            written[name] = spelling
    try:
        return _parse(data, path)
    except FieldError as exc:
        spelling = written.get(exc.name)
        if spelling is None:
            raise ConfigError(f"{path}: {exc}") from None
        raise ConfigError(f"{path}: {FieldError(spelling, exc.message)}") from None


def _parse(data: dict[str, Any], path: Path) -> TournamentSpec:
    unknown = sorted(set(data) - set(ALLOWED))
    if unknown:
        raise FieldError(unknown[0], f"unknown field (allowed: {', '.join(ALLOWED)})")
    for f in (*HEAD, *TAIL):
        if f.required and f.name not in data:
            raise FieldError(f.name, "is required")
    reading = Reading(path)
    values = reading.values
    for f in HEAD:
        values[f.name] = f.read(data, reading)
    fmt = FORMATS[values["format"]]
    options = {f.name: f.read(data, reading) for f in fmt.fields}
    values.update(options)
    for name in sorted(set(OWNERS) - set(options)):
        # Another format's field, written out at its default (``games = 1`` in a Swiss), is as if left out.
        other = _format_field(name)
        options[name] = other.default
        if name in data and other.kind.read(data[name], name, reading) != other.default:
            owners = " and ".join(owner.name for owner in OWNERS[name])
            why = fmt.instead.get(name)
            raise FieldError(name, f"applies to {owners} only" + (f" ({why})" if why else ""))
    for f in TAIL:
        values[f.name] = f.read(data, reading)
    return TournamentSpec(
        name=values["name"], game=values["game"], format=fmt.name, seats=values["seats"], bots=values["bots"],
        seed=values["seed"], rotations=values["rotations"], duplicate=values["duplicate"],
        variants=values["variants"], points=values["points"], time=values["time"], sandbox=values["sandbox"],
        concurrent=values["concurrent"], faults_to_disqualify=values["faults_to_disqualify"],
        options={name: options[name] for name in OWNERS
                 if options[name] is not None or not _format_field(name).stored_when_set},
        stop=values["stop"] if values["stop"]["rule"] != "none" else None,
    )


def growth(key: str, stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> int | None:
    """How much longer ``wanted`` makes the schedule than ``stored`` through field ``key``
    (negative: shorter), or None when ``key`` is not a schedule's length."""
    f = TOP.get(key) or (_format_field(key) if key in OWNERS else None)
    if f is None or f.grows is None:
        return None
    try:
        return f.grows(wanted.get(key), wanted) - f.grows(stored.get(key), stored)
    except (TypeError, KeyError):  # a stored spec of another shape: compared as any other field
        return None


def comparable(key: str, value: Any, game: Game, seats: Any) -> Any:
    """A stored spec's value as compared when the tournament resumes (``seats``: the stored
    seats), so that two files that play the same games agree: each field says how (``compare``)."""
    f = TOP.get(key) or (_format_field(key) if key in OWNERS else None)
    return value if f is None or f.compare is None else f.compare(value, game, seats)


# --------------------------------------------------------------------------- the documentation


def example() -> str:
    """A tournament file with every field and its help, as this module's docstring shows it."""
    def scalars(fields: Sequence[Field], notes: Mapping[str, str] | None = None) -> list[str]:
        return documented([f for f in fields if not isinstance(f.kind, (Table, Bots))], notes)

    lines = scalars(HEAD)
    for name, owners in OWNERS.items():  # a field two formats share (games) once, naming both
        shown = scalars([_format_field(name)], {name: " and ".join(o.name for o in owners) + ": "})
        if name == "games":  # shown as it is best spelled
            shown = [line.replace("games = ", "matches = ", 1).replace("  #", "#", 1)
                     .replace(")", "; games is the old spelling)", 1) for line in shown]
        lines += shown
    lines += scalars(TAIL)
    for f in TAIL:
        if isinstance(f.kind, Table):
            lines += ["", f"{'[' + f.name + ']':<29} # {f.help}", *scalars(f.kind.fields)]
    path = 'path = "../bots/random_bot.py"'
    lines += ["", "[[bots]]", 'name = "random"',
              f"{path:<29} # relative to this file; or leave out path for a registered bot",
              "", "[[bots]]", 'name = "heuristic"', 'path = "../bots/reactor_heuristic.py"',
              "", "[[bots]]", 'name = "strong"', 'path = "../bots/reactor_strong.py"']
    return "\n".join(lines) + "\n"


__doc__ = (__doc__ or "") + "\nExample::\n\n" + "".join(f"    {line}\n" if line else "\n" for line in
                                                      example().splitlines())
