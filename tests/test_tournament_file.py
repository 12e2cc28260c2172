"""The tournament file as a table of fields: the documented example is a real file, the stored
spec names every field as it always has, and a format's fields are its own."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.tournament import file
from arena.tournament.file import parse_tournament
from arena.tournament.spec import TournamentSpec
from protocol.messages import Limits

from common import ROOT

IN_TOURNAMENTS = ROOT / "tournaments" / "example.toml"  # where the example's bot paths lead to the bundled bots


def parse(text: str, where: Path = IN_TOURNAMENTS) -> TournamentSpec:
    return parse_tournament(tomllib.loads(text), where)


def two_bots(extra: str = "") -> str:
    return f'name = "x"\ngame = "reactor"\nseats = 2\n{extra}\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n'


def test_the_documented_example_is_a_tournament_file_with_every_field() -> None:
    example = file.example()
    assert file.__doc__ is not None and example.strip() in re.sub(r"\n    ", "\n", file.__doc__)
    spec = parse(example)
    assert spec.name == "quickstart-reactor" and [b.name for b in spec.bots] == ["random", "heuristic", "strong"]
    assert spec.time == {"decision": Limits().decision_ms, "game": Limits().game_ms, "startup": Limits().startup_ms}
    written = {m.group(1) for m in re.finditer(r"^(?:# )?(\w+) = ", example, re.M)}
    assert written >= set(file.ALLOWED) - {"bots", "time", "sandbox", "stop", "games"}  # games: shown as matches
    assert {"[time]", "[sandbox]", "[stop]", "[[bots]]"} <= {line.split()[0] for line in example.splitlines() if line}
    # Uncommenting every optional line gives a file as valid (each shows a default or an example).
    uncommented = re.sub(r"^# ", "", example, flags=re.M).replace('format = "round-robin"', 'format = "swiss"')
    everything = parse(re.sub(r"^(matches|candidates) = .*\n", "", uncommented, flags=re.M))
    assert everything.options == {"games": 1, "rounds": 4, "min_seats": 3}


def test_the_stored_spec_names_every_field_as_it_always_has() -> None:
    """What storage keeps, and compares when a tournament resumes (and `arena tournaments --json` shows)."""
    round_robin = parse(two_bots("games = 3"), Path("/t/x.toml"))
    assert round_robin.to_json() == {
        "name": "x", "game": "reactor", "format": "round-robin", "seats": 2, "bots": [{"name": "a"}, {"name": "b"}],
        "seed": "0", "games": 3, "rounds": None, "rotations": True, "duplicate": True, "variants": [],
        "points": None, "min_seats": None, "time": {"decision": 2000, "game": 60000, "startup": 10000},
        "sandbox": {"mode": "auto"}}
    swiss = parse(two_bots('format = "swiss"\nrounds = 2\nconcurrent = 4\nseed = "s"\n[sandbox]\nmemory_mb = 512'))
    assert swiss.to_json() == {
        "name": "x", "game": "reactor", "format": "swiss", "seats": 2, "bots": [{"name": "a"}, {"name": "b"}],
        "seed": "s", "games": 1, "rounds": 2, "rotations": True, "duplicate": True, "variants": [],
        "points": None, "min_seats": None, "time": {"decision": 2000, "game": 60000, "startup": 10000},
        "sandbox": {"mode": "auto", "memory_mb": 512}, "concurrent": 4}


@pytest.mark.parametrize(("extra", "message"), [
    ("rounds = 3", "field 'rounds': applies to swiss only (round-robin uses games)"),
    ("min_seats = 2", "field 'min_seats': applies to swiss only (a round-robin table always has seats bots)"),
    ('format = "swiss"\ngames = 5', "field 'games': applies to gauntlet and round-robin only (a swiss plays one deal per table "
                                    "per round)"),
    ('format = "swiss"\ngames = "five"', "field 'games': must be a whole number, not 'five'"),
    ('format = "swiss"\nmin_seats = 3', "field 'min_seats': must be from 2 to seats (2)"),
])
def test_a_field_of_another_format_is_refused_with_the_reason(extra: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse(two_bots(extra), Path("/t/x.toml"))
    assert str(info.value) == f"/t/x.toml: {message}"


def test_a_field_of_another_format_written_at_its_default_is_as_if_left_out() -> None:
    assert parse(two_bots('format = "swiss"\ngames = 1')).to_json() == parse(two_bots('format = "swiss"')).to_json()


def test_every_common_field_is_a_field_of_the_spec() -> None:
    attributes = {f.name for f in dataclasses.fields(TournamentSpec)} - {"options"}
    assert set(file.TOP) == attributes
    assert set(file.OWNERS) == {"candidates", "games", "rounds", "min_seats"}


@pytest.mark.parametrize(("key", "stored", "wanted"), [
    ("min_seats", 3, None),  # min_seats equal to seats (3) is no min_seats
    ("points", None, 1),  # Reactor's own
    ("variants", ["b", "a"], ["a", "b"]),
    ("sandbox", {"mode": "auto"}, {"mode": "auto", "memory_mb": 1024}),
    ("bots", [{"name": "b", "path": "/x/b.py"}, {"name": "a"}], [{"name": "a"}, {"name": "b", "path": "/y/b.py"}]),
])
def test_a_default_written_out_compares_equal_on_resume(key: str, stored: Any, wanted: Any) -> None:
    from arena.games import get_game

    game = get_game("reactor")
    assert file.comparable(key, stored, game, 3) == file.comparable(key, wanted, game, 3)
    assert file.comparable("rounds", 3, game, 3) != file.comparable("rounds", 4, game, 3)


def test_matches_is_the_spelling_of_games_and_the_old_one_still_works() -> None:
    assert parse(two_bots("matches = 3")).to_json() == parse(two_bots("games = 3")).to_json()
    with pytest.raises(ConfigError, match="give matches or its old spelling games, not both"):
        parse(two_bots("matches = 3\ngames = 3"))
    with pytest.raises(ConfigError, match="field 'matches': must be from 1"):
        parse(two_bots("matches = 0"))
