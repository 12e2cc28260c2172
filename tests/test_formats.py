"""The formats behind one interface: each counts the matches it schedules, yields them round by
round (a Swiss reads the results afresh for each round), and says when a failed round stops the run."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.games import GameResult
from arena.tournament.file import parse_tournament
from arena.tournament.formats import REGISTRY, Format, Pairing, Played, get_format

HERE = Path(__file__).resolve()


def bound(schedule: int = 2, **fields: Any) -> Format:
    """A format bound to a tournament of registered bots b0, b1, ... (``bots=N``)."""
    data: dict[str, Any] = {"name": "t", "game": "reactor", "seed": 7, **fields}
    data["bots"] = [{"name": f"b{i}"} for i in range(data.pop("bots", 5))]
    spec = parse_tournament(data, HERE)
    return get_format(spec.format)(spec, schedule)


def unplayed(pairing: Pairing) -> Played:
    return Played(pairing.seats)


CASES = [
    {"format": "round-robin", "seats": 3},
    {"format": "round-robin", "seats": 2, "games": 3, "rotations": False},
    {"format": "round-robin", "seats": 4, "bots": 6, "games": 2},
    {"format": "swiss", "seats": 3, "bots": 7},
    {"format": "swiss", "seats": 3, "bots": 8, "rounds": 2, "min_seats": 2},
    {"format": "swiss", "seats": 4, "bots": 10, "rounds": 3, "min_seats": 3, "rotations": False},
    {"format": "gauntlet", "seats": 3, "bots": 5, "candidates": ["b0"]},
    {"format": "gauntlet", "seats": 4, "bots": 6, "candidates": ["b4", "b1"], "games": 2},
    {"format": "gauntlet", "seats": 2, "bots": 4, "candidates": ["b3"], "games": 2, "rotations": False},
]


@pytest.mark.parametrize("schedule", [1, 2])
@pytest.mark.parametrize("fields", CASES)
def test_a_format_schedules_as_many_matches_as_it_says(fields: dict[str, Any], schedule: int) -> None:
    fmt = bound(schedule, **fields)
    rounds = list(fmt.rounds(lambda: unplayed))
    assert [r.number for r in rounds] == list(range(1, fmt.round_count + 1))
    pairings = [p for r in rounds for p in r.pairings]
    assert len(pairings) == fmt.size()
    assert len({p.id for p in pairings}) == len(pairings)
    assert all(p.round == r.number for r in rounds for p in r.pairings)


def test_the_registry_names_every_format_by_its_module() -> None:
    assert list(REGISTRY) == ["gauntlet", "round-robin", "swiss"]
    for name, cls in REGISTRY.items():
        assert cls.name == name and cls.__module__ == f"arena.tournament.formats.{name.replace('-', '_')}"


def test_a_swiss_reads_the_results_for_each_round_only_when_it_is_asked_for_it() -> None:
    """Round 2 is paired on what the store holds once round 1 is played, not before."""
    fmt = bound(format="swiss", seats=2, bots=4, rounds=2, rotations=False)
    wins: dict[str, int] = {}  # pairing id -> the seat that won it
    reads: list[int] = []

    def results() -> Any:
        reads.append(len(wins))
        snapshot = dict(wins)

        def played(pairing: Pairing) -> Played:
            if pairing.id not in snapshot:
                return Played(pairing.seats)
            places = [2, 2]
            places[snapshot[pairing.id]] = 1
            return Played(pairing.seats, (GameResult(tuple(places), snapshot[pairing.id]),))

        return played

    rounds = fmt.rounds(results)
    first = next(rounds)
    assert reads == [0]
    tables = list(first.pairings)
    for p in tables:
        wins[p.id] = 0  # seat 0 wins every table
    second = next(rounds)
    assert reads == [0, 2]
    winners = {p.seats[0] for p in tables}
    # The two winners (a point each) meet at the top table, the two losers below.
    assert {frozenset(p.seats) for p in second.pairings} == {frozenset(winners),
                                                              frozenset(set(fmt.bots) - winners)}
    assert fmt.standings(tables, results()) == {b: Fraction(int(b in winners)) for b in fmt.bots}
    assert next(rounds, None) is None


def test_a_failed_round_says_which_rounds_were_not_paired() -> None:
    swiss = bound(format="swiss", seats=2, bots=4, rounds=3)
    first, second, last = (next(r for r in swiss.rounds(lambda: unplayed) if r.number == n) for n in (1, 2, 3))
    assert swiss.incomplete(first) == ("swiss round 1 is incomplete, so rounds 2-3 were not paired; "
                                       "run the same command again to finish it")
    assert swiss.incomplete(second) == ("swiss round 2 is incomplete, so round 3 was not paired; "
                                        "run the same command again to finish it")
    assert swiss.incomplete(last) is None
    round_robin = bound(format="round-robin", seats=2, bots=3)
    assert round_robin.incomplete(next(round_robin.rounds(lambda: unplayed))) is None


LINEUP = '''"""A format made up for the test: the field's first ``seats`` bots, ``repeats`` times."""

from arena.core.pairing import Pairing
from arena.tournament.fields import Field, Whole
from arena.tournament.formats.base import Format, Round


class Lineup(Format):
    name = "lineup"
    fields = (Field("repeats", Whole(1, 9), "times the lineup plays", default=2),)

    @property
    def round_count(self):
        return 1

    def size(self):
        return self.spec.options["repeats"]

    def rounds(self, results):
        seats = tuple(sorted(self.bots)[: self.spec.seats])
        yield Round(1, [Pairing(f"r1-t1-s{i}", 1, 1, seats, "lineup", 0) for i in range(self.size())])


FORMAT = Lineup
'''

PROBE = '''
import sys, tomllib
from pathlib import Path
from arena.errors import ConfigError
from arena.tournament.file import parse_tournament
from arena.tournament.formats import get_format
base = 'name = "x"\\ngame = "reactor"\\nseats = 2\\n[[bots]]\\nname = "a"\\n[[bots]]\\nname = "b"\\n[[bots]]\\nname = "c"\\n'
spec = parse_tournament(tomllib.loads('format = "lineup"\\nrepeats = 3\\n' + base), Path("/t/x.toml"))
fmt = get_format(spec.format)(spec)
print([p.seats for r in fmt.rounds(lambda: None) for p in r.pairings], spec.to_json()["repeats"])
for text in ('format = "lineup"\\nrounds = 2\\n', 'repeats = 3\\n', 'format = "lineup"\\nrepeats = 10\\n'):
    try:
        parse_tournament(tomllib.loads(text + base), Path("/t/x.toml"))
    except ConfigError as exc:
        print(exc)
'''


def test_a_new_format_is_one_new_module(tmp_path: Path) -> None:
    """Dropped into formats/, a module is a format: found by the registry, its fields read from
    tournament files (and refused in another format's), its rounds played; nothing else changes."""
    import shutil
    import subprocess
    import sys

    from common import ROOT

    tree = tmp_path / "tree"
    for name in ("arena", "protocol"):
        shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "arena" / "tournament" / "formats" / "lineup.py").write_text(LINEUP)
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tree, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[('a', 'b'), ('a', 'b'), ('a', 'b')] 3",
        "/t/x.toml: field 'rounds': applies to swiss only",
        "/t/x.toml: field 'repeats': applies to lineup only",
        "/t/x.toml: field 'repeats': must be from 1 to 9, not 10",
    ]


@pytest.mark.parametrize("fields", [c for c in CASES if c["format"] == "gauntlet"], ids=str)
def test_a_gauntlet_seats_its_candidates_at_every_table_and_balances_the_seats(fields: dict[str, Any]) -> None:
    fmt = bound(**fields)
    pairings = [p for r in fmt.rounds(lambda: unplayed) for p in r.pairings]
    candidates, seats = set(fields["candidates"]), fields["seats"]
    pool = {f"b{i}" for i in range(fields["bots"])} - candidates
    assert all(candidates <= set(p.seats) and len(p.seats) == seats for p in pairings)
    # Every choice of pool bots beside the candidates, once per game.
    tables = {frozenset(p.seats) - candidates for p in pairings}
    assert len(tables) == len(list(__import__("itertools").combinations(sorted(pool), seats - len(candidates))))
    # Every bot sits in every seat equally often.
    for bot in {*candidates, *pool}:
        at = Counter(p.seats.index(bot) for p in pairings if bot in p.seats)
        assert len(set(at.values())) == 1 and set(at) == set(range(seats)), (bot, at)
    # Pool bots never play a table without the candidates; ids and deals are unique per match.
    assert len({p.id for p in pairings}) == len(pairings)


@pytest.mark.parametrize(("fields", "words"), [
    ({"format": "gauntlet", "seats": 3}, "'candidates': is required"),
    ({"format": "gauntlet", "seats": 3, "candidates": ["zz"]}, "'zz' is not one of the bots"),
    ({"format": "gauntlet", "seats": 2, "bots": 3, "candidates": ["b0", "b1"]}, "'seats': a table seats the 2"),
    ({"format": "gauntlet", "seats": 2, "bots": 2, "candidates": ["b0", "b1"]}, "leave at least one bot in the pool"),
    ({"format": "round-robin", "seats": 3, "candidates": ["b0"]}, "'candidates': applies to gauntlet only"),
])
def test_a_gauntlet_file_that_cannot_be_played_names_the_field(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(words)):
        bound(**fields)


def test_a_gauntlet_tournament_runs_and_every_game_has_the_candidate(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli import app
    from arena.storage import open_store

    random_bot = HERE.parent.parent / "bots" / "random_bot.py"
    bots = "".join(f'[[bots]]\nname = "{n}"\npath = "{random_bot}"\n' for n in ("mine", "p1", "p2"))
    (tmp_path / "g.toml").write_text('name = "g"\ngame = "reactor"\nformat = "gauntlet"\ncandidates = ["mine"]\n'
                                     f'seats = 2\nseed = 3\n[sandbox]\nmode = "none"\n{bots}')
    db = str(tmp_path / "g.db")
    result = CliRunner().invoke(app, ["run", str(tmp_path / "g.toml"), "--db", db])
    assert result.exit_code == 0, result.output
    with open_store(db) as store:
        games = store.games("g")
    assert len(games) == 4 and all("mine" in g.bots for g in games)
    assert Counter(g.bots.index("mine") for g in games) == {0: 2, 1: 2}


def test_a_gauntlets_standings_report_each_candidate_against_the_pool_and_each_other(tmp_path: Path) -> None:
    """A gauntlet answers its authors' question: each candidate against every pool bot, and two
    candidates (say two versions of one bot) against each other, each with its interval."""
    import json

    from typer.testing import CliRunner

    from arena.cli import app
    from arena.results import h2h, load_pool
    from arena.storage import open_store

    bot_dir = HERE.parent.parent / "bots"
    paths = {"new": bot_dir / "reactor_heuristic.py", "old": bot_dir / "random_bot.py",
             "p1": bot_dir / "random_bot.py", "p2": bot_dir / "random_bot.py"}
    bots = "".join(f'[[bots]]\nname = "{n}"\npath = "{p}"\n' for n, p in paths.items())
    (tmp_path / "g.toml").write_text('name = "g"\ngame = "reactor"\nformat = "gauntlet"\ncandidates = ["new", "old"]\n'
                                     f'seats = 3\nseed = 5\n[sandbox]\nmode = "none"\n{bots}')
    db = str(tmp_path / "g.db")
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(tmp_path / "g.toml"), "--db", db]).exit_code == 0
    shown = runner.invoke(app, ["standings", "g", "--db", db, "--json"])
    assert shown.exit_code == 0, shown.output
    versus = json.loads(shown.output)["versus"]
    assert [(p["a"], p["b"]) for p in versus] == [("new", "p1"), ("new", "p2"), ("old", "p1"), ("old", "p2"),
                                                  ("new", "old")]
    with open_store(db) as store:
        pool = load_pool(store, tournament="g")
        games = store.games("g")
    for p in versus:
        shared = [g for g in games if p["a"] in g.bots and p["b"] in g.bots]
        assert p["games"] == len(shared) and p["a_ahead"] + p["b_ahead"] + p["level"] == len(shared)
        assert p == h2h(pool, p["a"], p["b"]).pair.to_json()
    assert versus[-1]["games"] == len(games) == 6  # the candidates sit at every table
    text = runner.invoke(app, ["standings", "g", "--db", db])
    assert text.exit_code == 0 and "candidates against the pool" in text.output
