"""The fields of a tournament file, declared as data: each field's name, kind, default, bounds
and help, read by one loop (:func:`arena.tournament.file.parse_tournament`) and documented from
the same declaration.

A :class:`Field` is read by its :class:`Kind` (the TOML it takes, and the message when the value
is not that), then given its default when left out, then checked against the fields read before
it (``check``), so that a rule across fields (``seats`` within the game's limits) sits with the
field it is about.  A format contributes fields of its own (:attr:`Format.fields
<arena.tournament.formats.base.Format.fields>`) in the same terms.
"""

from __future__ import annotations

import json
import shlex
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.package import pack, pack_target
from arena.core.names import NAME_RULE, valid_name
from arena.errors import UnknownBot
from arena.games import REGISTRY as GAMES
from arena.games import Game
from arena.tournament.spec import BotEntry


class FieldError(Exception):
    """A field of a tournament file is wrong: which one (``time.decision``), and why."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"field '{name}': {message}")
        self.name = name
        self.message = message


@dataclass(slots=True)
class Reading:
    """A tournament file being read: where it is (bots' paths are relative to it) and the values
    of the fields read so far."""

    path: Path
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def game(self) -> Game:
        return GAMES[self.values["game"]]


class Kind(ABC):
    """What a field takes: TOML of one kind, within bounds."""

    @abstractmethod
    def read(self, value: Any, name: str, reading: Reading) -> Any:
        """``value`` as the spec keeps it, or a :class:`FieldError` naming ``name``."""

    def hint(self) -> str:
        """What it takes, for the documentation ("" when the help says it all)."""
        return ""

    def missing(self, name: str, reading: Reading) -> Any:
        """The value of a field of this kind left out of the file and without a default."""
        return None


@dataclass(frozen=True, slots=True)
class Whole(Kind):
    """A whole number from ``low`` to ``high`` (no upper bound: ``None``)."""

    low: int
    high: int | None = None

    def read(self, value: Any, name: str, reading: Reading) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise FieldError(name, f"must be a whole number, not {value!r}")
        if value < self.low or (self.high is not None and value > self.high):
            limit = f"from {self.low} to {self.high}" if self.high is not None else f"at least {self.low}"
            raise FieldError(name, f"must be {limit}, not {value}")
        return value

    def hint(self) -> str:
        return f"{self.low}-{self.high}" if self.high is not None else f"at least {self.low}"


@dataclass(frozen=True, slots=True)
class Real(Kind):
    """A number strictly between ``low`` and ``high`` (a whole number is taken as one too)."""

    low: float
    high: float

    def read(self, value: Any, name: str, reading: Reading) -> float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise FieldError(name, f"must be a number, not {value!r}")
        if not self.low < value < self.high:
            raise FieldError(name, f"must be between {self.low:g} and {self.high:g}, not {value}")
        return float(value)

    def hint(self) -> str:
        return f"between {self.low:g} and {self.high:g}"


@dataclass(frozen=True, slots=True)
class OneOf(Kind):
    """One of a few names."""

    choices: tuple[str, ...]

    def read(self, value: Any, name: str, reading: Reading) -> str:
        # The type first, so that a list or a table is an error like any other (never `unhashable type`).
        if not isinstance(value, str) or value not in self.choices:
            raise FieldError(name, f"must be one of {', '.join(self.choices)}, not {value!r}")
        return value

    def hint(self) -> str:
        *first, last = self.choices
        return f"{', '.join(first)} or {last}" if first else last


@dataclass(frozen=True, slots=True)
class Flag(Kind):
    """true or false."""

    def read(self, value: Any, name: str, reading: Reading) -> bool:
        if not isinstance(value, bool):
            raise FieldError(name, f"must be true or false, not {value!r}")
        return value


@dataclass(frozen=True, slots=True)
class Name(Kind):
    """A name by the one rule for bot and tournament names."""

    def read(self, value: Any, name: str, reading: Reading) -> str:
        if not valid_name(value):
            raise FieldError(name, f"must be {NAME_RULE}, not {value!r}")
        return value


@dataclass(frozen=True, slots=True)
class Seed(Kind):
    """A number or a string, kept as a string (what the schedule's seeded draws are labelled with)."""

    def read(self, value: Any, name: str, reading: Reading) -> str:
        if not isinstance(value, (int, str)) or isinstance(value, bool):
            raise FieldError(name, "must be a number or a string")
        return str(value)


@dataclass(frozen=True, slots=True)
class Words(Kind):
    """A list of strings (``what`` names them in the error)."""

    what: str

    def read(self, value: Any, name: str, reading: Reading) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise FieldError(name, f"must be a list of {self.what}")
        return tuple(value)


@dataclass(frozen=True, slots=True)
class Table(Kind):
    """A TOML table of fields of its own (``[time]``); a sub-field left out without a default
    is left out of the value too."""

    fields: tuple[Field, ...]
    shape: str  # what the error says it must be, e.g. "a table with decision, game and startup"

    def read(self, value: Any, name: str, reading: Reading) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise FieldError(name, f"must be {self.shape}")
        allowed = sorted(f.name for f in self.fields)
        extra = sorted(set(value) - set(allowed))
        if extra:
            raise FieldError(f"{name}.{extra[0]}", f"unknown field (allowed: {', '.join(allowed)})")
        out: dict[str, Any] = {}
        for sub in self.fields:
            got = sub.read(value, reading, prefix=f"{name}.")
            if got is not None:
                out[sub.name] = got
        return out

    def missing(self, name: str, reading: Reading) -> dict[str, Any]:
        return self.read({}, name, reading)  # the sub-fields' defaults


@dataclass(frozen=True, slots=True)
class Bots(Kind):
    """``[[bots]]`` tables, each a name and optionally a path (relative to the file) to register."""

    def read(self, value: Any, name: str, reading: Reading) -> tuple[BotEntry, ...]:
        if not isinstance(value, list) or not value:
            raise FieldError(name, "must be a list of [[bots]] tables, each with a name and optionally a path")
        bots = tuple(self._entry(entry, f"{name}[{i}]", reading.path) for i, entry in enumerate(value))
        names = [b.name for b in bots]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise FieldError(name, f"bot {dup!r} is listed twice")
        return bots

    @staticmethod
    def _entry(entry: Any, where: str, file: Path) -> BotEntry:
        if not isinstance(entry, dict):
            raise FieldError(where, "must be a table with name (and optionally path or command)")
        extra = sorted(set(entry) - {"name", "path", "command"})
        if extra:
            raise FieldError(f"{where}.{extra[0]}", "unknown field (allowed: name, path, command)")
        if "name" not in entry:
            raise FieldError(f"{where}.name", f"is required ({NAME_RULE})")
        raw = entry["name"]
        if isinstance(raw, str) and "@" in raw and not {"path", "command"} & set(entry):
            # One stored version of a registered bot: NAME@N or NAME@HASH-PREFIX.
            base, _, ref = raw.partition("@")
            Name().read(base, f"{where}.name", Reading(file))
            if not (ref.isdigit() or (len(ref) >= 4 and all(c in "0123456789abcdefABCDEF" for c in ref))):
                raise FieldError(f"{where}.name", f"{raw!r}: after @ give a version number or 4+ hex digits of "
                                 "its sha256, as `arena bots show NAME` lists them")
            return BotEntry(raw)
        name = Name().read(raw, f"{where}.name", Reading(file))
        if "path" in entry and "command" in entry:
            raise FieldError(f"{where}.command", "give path or command, not both")
        if "command" in entry:
            return BotEntry(name, command=_command(entry["command"], f"{where}.command", file))
        if "path" not in entry:
            return BotEntry(name)
        if not isinstance(entry["path"], str):
            raise FieldError(f"{where}.path", "must be a string")
        if not entry["path"] or "\0" in entry["path"]:  # no file has such a name (a NUL was a traceback)
            raise FieldError(f"{where}.path", f"must name the bot's file, not {entry['path']!r}")
        path = (file.parent / entry["path"]).resolve()
        if not path.exists():
            raise FieldError(f"{where}.path", f"no such file: {path} (a bot already registered, or in a tournament "
                             "already begun, plays its stored copy if the file leaves out its path)")
        try:
            pack(path)  # a file arena can not run (a README, say), or a folder without a bot.toml
        except UnknownBot as exc:
            raise FieldError(f"{where}.path", str(exc)) from None
        return BotEntry(name, path)


def _command(value: Any, where: str, file: Path) -> str:
    """A bot's command line, its words that name files made absolute from the tournament file's folder."""
    if not isinstance(value, str) or not value.strip():
        raise FieldError(where, 'must be a command line, such as "../botenv/bin/python ../mybot/bot.py"')
    try:
        words = shlex.split(value)
    except ValueError as exc:
        raise FieldError(where, str(exc)) from None
    words = [str((file.parent / w).resolve()) if "/" in w and (file.parent / w).exists() else w for w in words]
    line = shlex.join(words)
    try:
        pack_target(line)
    except UnknownBot as exc:
        raise FieldError(where, str(exc)) from None
    return line


Check = Callable[[Any, Reading], None]  # raises FieldError
Compare = Callable[[Any, Game, Any], Any]  # a stored value, the game and the stored seats -> as compared
Length = Callable[[Any, Mapping[str, Any]], int]  # a value and the whole stored spec -> the schedule's length


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a tournament file.

    ``default`` is its value when left out (``None``: no value; ``fill`` instead computes one
    from the fields read before); ``example`` is TOML the documentation shows (by default the
    default's own; a field without a default is shown commented out).  ``check`` runs on a
    value that is there, with the fields read before it.  ``compare`` is how its stored value
    compares when a tournament resumes (so that a default written out equals one left out), and
    ``run_only`` marks a setting a resumed run may change (it changes how fast, never what is
    played).  ``grows`` marks the schedule's length (``games``, ``rounds``): a resumed run may
    raise it, and plays the games it adds; it gives the length a value stands for.
    ``stored_when_set`` marks a format's field that other formats' stored specs leave out.
    """

    name: str
    kind: Kind
    help: str
    default: Any = None
    required: bool = False
    example: str | None = None
    fill: Callable[[Reading], Any] | None = None
    check: Check | None = None
    compare: Compare | None = None
    run_only: bool = False
    grows: Length | None = None
    stored_when_set: bool = False  # newer than tournaments already stored: kept in a spec only when set

    def read(self, data: Mapping[str, Any], reading: Reading, prefix: str = "") -> Any:
        """This field's value from ``data`` (a file's table): read, defaulted, checked."""
        name = prefix + self.name
        if self.name in data:
            value = self.kind.read(data[self.name], name, reading)
        elif self.fill is not None:
            value = self.fill(reading)
        elif self.default is not None:
            value = self.default
        else:
            value = self.kind.missing(name, reading)
        if value is not None and self.check is not None:
            self.check(value, reading)
        return value

    def toml(self) -> str:
        """The example line's value."""
        return self.example if self.example is not None else _toml(self.default)

    def shown(self) -> bool:
        """Whether the documentation shows it as written (else in a comment: optional)."""
        return self.required or self.default is not None


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, list, tuple)):
        return json.dumps(list(value) if isinstance(value, tuple) else value)
    return str(value)


def documented(fields: Sequence[Field], notes: Mapping[str, str] | None = None) -> list[str]:
    """Lines of example TOML, each field with its help (and ``notes``, by name, before it)."""
    lines = []
    for f in fields:
        text = f"{'' if f.shown() else '# '}{f.name} = {f.toml()}"
        hint = f.kind.hint()
        comment = (notes or {}).get(f.name, "") + f.help + (f" ({hint})" if hint else "")
        lines.append(f"{text:<29} # {comment}")
    return lines
