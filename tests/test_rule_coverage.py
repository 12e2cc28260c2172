"""Every rule, ruling, decision point and random event of both specifications is cited by a test.

The rule tests live in tests/games/; a citation is the identifier as a whole word (``R1`` is not
``R12``).  The list of identifiers is the one of ../shared/rulings.md, kept in our specs: every one
in the bot's-eye specification (seeds/<game>.md), and the random events also in the engine notes
(seeds/<game>-engine.md), which give the chance calls and their recorded form.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).parent / "games"
SEEDS = Path(__file__).parent.parent / "seeds"


def ids(prefix: str, last: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(1, last + 1)]


REQUIRED = {
    "reactor": (ids("R", 22) + ids("RQ", 31) + ["RD1", "RD2", "RE1", "RE2"]),
    "powder_keg": (ids("R", 25) + ["R12a", "R12b"] + ids("KQ", 40) + ids("KD", 5) + ids("KE", 5)),
}
SPEC_FILE = {"reactor": "reactor.md", "powder_keg": "powder-keg.md"}
ENGINE_FILE = {"reactor": "reactor-engine.md", "powder_keg": "powder-keg-engine.md"}
CHANCE = {"reactor": ["RE1", "RE2"], "powder_keg": ids("KE", 5)}


def cited(text: str, ident: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(ident)}(?![0-9a-z])", text) is not None


@pytest.mark.parametrize("game", sorted(REQUIRED))
def test_every_rule_is_cited_by_a_test(game: str) -> None:
    text = "".join(p.read_text() for p in TESTS.glob(f"*{game.split('_')[0]}*.py"))
    missing = [i for i in REQUIRED[game] if not cited(text, i)]
    assert not missing, f"rules never cited in tests/games/*{game}*: {missing}"


@pytest.mark.parametrize("game", sorted(REQUIRED))
def test_every_rule_is_in_our_spec(game: str) -> None:
    text = (SEEDS / SPEC_FILE[game]).read_text()
    missing = [i for i in REQUIRED[game] if not cited(text, i)]
    assert not missing, f"rules missing from seeds/{SPEC_FILE[game]}: {missing}"


@pytest.mark.parametrize("game", sorted(REQUIRED))
def test_every_random_event_is_in_the_engine_notes(game: str) -> None:
    text = (SEEDS / ENGINE_FILE[game]).read_text()
    missing = [i for i in CHANCE[game] if not cited(text, i)]
    assert not missing, f"random events missing from seeds/{ENGINE_FILE[game]}: {missing}"
