"""Each game's JSON Schema (``arena schema --game G``) describes exactly what its bots are shown and answer.

- Real games validate: the observation, the legal list and the chosen action of every decision, the
  events as every seat and a spectator receive them, and the config, from random and built-in-policy
  games of every game, seat count and variant set, with forfeits (absent seats too), random starters
  and the safety cap among them.  They are validated as a bot author's tooling would, with
  fastjsonschema against the schema as shipped; and every action and event type, and both sides of
  every nullable observation field, is met at least once, so no part of a schema goes unchecked.
- The schemas can fail: a real value with a field missing, a field of the wrong type, an extra key,
  an unknown action type, or a logged event in its private form is rejected.
- The docs cannot drift from them: the bot's-eye specification (``seeds/<game>.md``) names every
  observation field, action type, event type and config field the schema has, and every JSON example
  in it validates (so do the game payloads of protocol/README.md's examples).
"""

from __future__ import annotations

import copy
import importlib.resources
import itertools
import json
import random
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import REGISTRY, GameConfig, GameError, SeededChance
from arena.games.base import Game, State
from arena.games.policy import make_policy

ROOT = Path(__file__).resolve().parent.parent
SPEC = {"reactor": ROOT / "seeds" / "reactor.md", "powder-keg": ROOT / "seeds" / "powder-keg.md"}
GAMES = sorted(REGISTRY)
KINDS = ("observation", "legal", "action", "event", "config")

# Games per table (seat count x variant set), by game: Reactor has 5 tables, Powder Keg 32.
RANDOM_GAMES = {"reactor": 10, "powder-keg": 3}
POLICY_GAMES = {"reactor": 3, "powder-keg": 1}
SLOW = {"reactor": ("strong",)}  # built-in bots that think for milliseconds a decision
FAULTS = ("timeout", "crash", "illegal", "startup", "disqualified")


@cache
def validators(game: str) -> dict[str, Any]:
    """A compiled checker for each kind of value, and for each action and event definition."""
    defs = REGISTRY[game].schema()["definitions"]
    names = [*KINDS, *(d for d in defs if d.startswith(("action_", "event_")))]
    return {name: fastjsonschema.compile({"$ref": f"#/definitions/{name}", "definitions": defs}) for name in names}


def valid(game: str, kind: str, value: Any) -> bool:
    try:
        validators(game)[kind](copy.deepcopy(value))  # a validator may fill in defaults: not into shared dicts
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


def tables(game: Game) -> list[tuple[int, tuple[str, ...]]]:
    combos = [c for r in range(len(game.variants) + 1) for c in itertools.combinations(game.variants, r)]
    return [(n, v) for n in range(game.min_players, game.max_players + 1) for v in combos]


class Corpus:
    """What real games showed their bots, checked as it comes and counted for coverage."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.check = validators(game)
        self.counts: Counter[str] = Counter()
        self.seen_events: set[str] = set()
        self.nulls: dict[str, set[bool]] = {}

    def validate(self, kind: str, value: Any) -> None:
        try:
            self.check[kind](value)
        except fastjsonschema.JsonSchemaValueException as exc:
            raise AssertionError(f"{self.game} {kind} breaks the schema ({exc.message}): {value!r}") from None
        self.counts[kind] += 1

    def observation(self, obs: dict[str, Any]) -> None:
        self.validate("observation", obs)
        for key, value in obs.items():
            self.nulls.setdefault(key, set()).add(value is None)

    def decision(self, state: State, seat: int, legal: list[dict[str, Any]], action: dict[str, Any]) -> None:
        self.observation(state.observation(seat))
        self.validate("legal", legal)
        self.validate("action", action)
        self.validate(f"action_{action['type']}", action)

    def finished(self, state: State) -> None:
        """Every event as each seat and a spectator receive it; the last observations."""
        for seat in [*range(state.config.players), None]:
            for event in state.events(seat):
                key = json.dumps(event, sort_keys=True)
                if key not in self.seen_events:  # most events are public and repeat: check each once
                    self.seen_events.add(key)
                    self.validate("event", event)
                    self.validate(f"event_{event['type']}", event)
        # The end as each seat would see it (no bot is shown it, but the schema covers it), unless
        # every seat forfeited: then nobody is left to see anything.
        if len(state.result().forfeits) < state.config.players:
            for seat in range(state.config.players):
                self.observation(state.observation(seat))


def play(corpus: Corpus, game: Game, config: GameConfig, seed: str, policies: list[str], *,
         forfeit_rate: float = 0.0, absent: tuple[int, ...] = ()) -> None:
    """One game as the referee plays it, checking each value a bot would be sent or would answer."""
    corpus.validate("config", config.to_json())
    state = game.new_game(config, SeededChance(seed))
    rng = random.Random(f"{seed}:faults")
    if absent:
        state.forfeit_absent({s: rng.choice(FAULTS) for s in absent})
    bots = [make_policy(game.name, name, random.Random(f"{seed}:{s}")) for s, name in enumerate(policies)]
    cursors = [0] * config.players
    while (decision := state.to_move()) is not None:
        seat = decision.seat
        if rng.random() < forfeit_rate:
            state.forfeit(seat, rng.choice(FAULTS))
            continue
        bot = bots[seat]
        observe = getattr(bot, "observe_events", None)
        if observe is not None:  # what a bot program is fed with each request
            observe(state.events(seat, cursors[seat]))
            cursors[seat] = len(state.log)
        legal = state.legal_actions()
        action = bot.act(state.observation(seat) if bot.needs_observation else None, legal)
        corpus.decision(state, seat, legal, action)
        state.apply(action)
    corpus.finished(state)


@cache
def corpus(game_name: str) -> Corpus:
    game = REGISTRY[game_name]
    found = Corpus(game_name)
    builtin = list(game.policies())
    for players, variants in tables(game):
        base = GameConfig(players=players, variants=variants)
        for i in range(RANDOM_GAMES[game_name]):
            seed = f"schema:{players}:{'+'.join(variants)}:{i}"
            rng = random.Random(seed)
            config = base
            # Some games vary what the harness may set: a random starter; another seat starting
            # (a match's later game) under a low safety cap (Reactor also caps rounds).
            if i % 4 == 1:
                config = GameConfig(players=players, variants=variants, starter=None)
            elif i % 4 == 2:
                config = GameConfig(players=players, variants=variants, starter=rng.randrange(players),
                                    points=3, max_decisions=rng.randint(1, 40),
                                    max_rounds=rng.randint(1, 2) if game_name == "reactor" else None)
            absent = tuple(sorted(rng.sample(range(players), rng.randint(1, players)))) if i % 5 == 3 else ()
            play(found, game, config, seed, ["random"] * players, forfeit_rate=0.02 if i % 3 == 0 else 0.0,
                 absent=absent)
        for i in range(POLICY_GAMES[game_name]):
            seed = f"schema:{players}:{'+'.join(variants)}:policies:{i}"
            # The first lineup has every built-in bot, a slow one in a short capped game; the
            # others play whole games (Reactor's washes and lapses come mostly from them).
            pool = builtin if i == 0 else [b for b in builtin if b not in SLOW.get(game_name, ())]
            names = [pool[(i + s) % len(pool)] for s in range(players)]
            capped = any(name in SLOW.get(game_name, ()) for name in names)
            config = GameConfig(players=players, variants=variants, max_decisions=60 if capped else None)
            play(found, game, config, seed, names)
    return found


def test_the_schemas_ship_inside_the_game_packages() -> None:
    import fnmatch
    import tomllib

    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for name, game in REGISTRY.items():
        folder = name.replace("-", "_")
        # An installed wheel has it too (an editable install would find it without the entry).
        assert any(fnmatch.fnmatch(f"{folder}/schema.json", pattern) for pattern in package_data["arena.games"])
        package = f"arena.games.{folder}"
        text = importlib.resources.files(package).joinpath("schema.json").read_text(encoding="utf-8")
        assert json.loads(text) == game.schema()
        doc = game.schema()
        assert doc["$schema"] == "http://json-schema.org/draft-07/schema#"
        assert set(KINDS) <= set(doc["definitions"]), name
        doc["definitions"].clear()
        assert game.schema()["definitions"], "schema() must hand out a copy"
        fastjsonschema.compile(game.schema())  # as a whole, as any other tool would take it


@pytest.mark.parametrize("game", GAMES)
def test_real_games_validate(game: str) -> None:
    found = corpus(game)
    counts = found.counts
    assert counts["observation"] >= 5000 and counts["event"] >= 1000, counts
    defs = REGISTRY[game].schema()["definitions"]
    unmet = [d for d in defs if d.startswith(("action_", "event_")) and not counts[d]]
    assert not unmet, f"no real game of {game} had these: {unmet}"
    # Every nullable observation field was seen both null and not.
    props = defs["observation"]["properties"]
    nullable = [k for k, p in props.items() if p.get("type") in (["object", "null"], ["array", "null"])
                or None in p.get("enum", ()) or p.get("$ref", "").endswith("_or_null")]
    assert nullable
    one_sided = {k: found.nulls[k] for k in nullable if found.nulls[k] != {True, False}}
    assert not one_sided, f"seen only null (True) or only set (False): {one_sided}"


def test_the_whole_schema_takes_every_kind_of_value() -> None:
    """The root's oneOf accepts each kind (the definitions do not overlap) and nothing else."""
    for name, game in REGISTRY.items():
        root = fastjsonschema.compile(game.schema())
        state = game.new_game(GameConfig(players=3), SeededChance(1))
        seat = state.to_move().seat
        for value in (state.observation(seat), state.legal_actions()[0], *state.events(seat),
                      state.config.to_json()):
            root(copy.deepcopy(value))
        with pytest.raises(fastjsonschema.JsonSchemaValueException):
            root({"type": "nonsense"})


# -- the schemas can fail -------------------------------------------------------------------------


def sample(game_name: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], State]:
    """A real observation mid-game, the legal actions there, and the events so far (seat 0's view)."""
    game = REGISTRY[game_name]
    state = game.new_game(GameConfig(players=3, variants=game.variants), SeededChance("schema-sample"))
    rng = random.Random(0)
    for _ in range(25):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    seat = state.to_move().seat
    return state.observation(seat), state.legal_actions(), state.events(seat), state


@pytest.mark.parametrize("game", GAMES)
def test_a_real_observation_broken_in_any_field_is_rejected(game: str) -> None:
    obs, _, _, _ = sample(game)
    assert valid(game, "observation", obs)
    for key in obs:
        missing = {k: v for k, v in obs.items() if k != key}
        assert not valid(game, "observation", missing), f"{key} missing"
        assert not valid(game, "observation", {**obs, key: "?"}), f"{key} as a string"
    assert not valid(game, "observation", {**obs, "pile_order": []}), "an extra key"
    assert not valid(game, "observation", {**obs, "hand": [*obs["hand"], "X"]}), "an unknown card"


@pytest.mark.parametrize("game", GAMES)
def test_a_real_action_broken_in_any_way_is_rejected(game: str) -> None:
    _, legal, _, _ = sample(game)
    assert valid(game, "legal", legal)
    assert not valid(game, "legal", []), "an empty legal list"
    assert not valid(game, "legal", [legal[0], legal[0]]), "the same action twice"
    for action in legal:
        assert valid(game, "action", action)
        for key in action:
            assert not valid(game, "action", {k: v for k, v in action.items() if k != key}), f"{action}: {key} missing"
            assert not valid(game, "action", {**action, key: [action[key]]}), f"{action}: {key} of the wrong type"
        assert not valid(game, "action", {**action, "seat": 0}), f"{action}: an extra key"
    assert not valid(game, "action", {"type": "nonsense"}), "an unknown action type"


@pytest.mark.parametrize("game", GAMES)
def test_a_real_event_broken_in_any_way_is_rejected(game: str) -> None:
    _, _, events, state = sample(game)
    defs = REGISTRY[game].schema()["definitions"]
    for event in events:
        assert valid(game, "event", event)
        for key in defs[f"event_{event['type']}"]["required"]:  # a hidden field is absent for other seats
            assert not valid(game, "event", {k: v for k, v in event.items() if k != key}), f"{event}: {key} missing"
        assert not valid(game, "event", {**event, "extra": 1}), f"{event}: an extra key"
    private = next(e for e in state.log if "private" in e)
    assert not valid(game, "event", private), "a logged event in its private form is never sent to a bot"
    assert not valid(game, "event", {"type": "nonsense", "seat": 0}), "an unknown event type"


@pytest.mark.parametrize(("game", "kind", "value", "why"), [
    ("reactor", "action", {"type": "play", "card": "S"}, "a Spark without its value"),
    ("reactor", "action", {"type": "play", "card": "S", "value": 7}, "a Spark worth 7"),
    ("reactor", "action", {"type": "play", "card": "S", "value": True}, "true is not 1"),
    ("reactor", "action", {"type": "play", "card": "10", "value": 1}, "a value on a card that is not a Spark"),
    ("reactor", "action", {"type": "play", "card": "11"}, "no such card"),
    ("reactor", "action", {"type": "pass"}, "Powder Keg's action"),
    ("reactor", "config", {"players": 7, "variants": [], "starter": 0, "points": None, "max_decisions": None,
                           "max_rounds": None}, "seven players"),
    ("reactor", "config", {"players": 3, "variants": ["short-hands"], "starter": 0, "points": None,
                           "max_decisions": None, "max_rounds": None}, "Reactor has no variants"),
    ("reactor", "event", {"type": "play", "seat": 0, "card": "9", "meter": 100}, "a meter over 99"),
    ("powder-keg", "action", {"type": "favour", "target": "2"}, "a seat as a string"),
    ("powder-keg", "action", {"type": "triple", "card": "4", "target": 1}, "a triple naming nothing"),
    ("powder-keg", "action", {"type": "pair", "card": "K", "target": 1}, "a pair of Kings"),
    ("powder-keg", "action", {"type": "play", "card": "Q"}, "a lone Veto is no play"),
    ("powder-keg", "action", {"type": "five", "cards": ["Bk", "Q", "9", "6", "6"]}, "five of four types"),
    ("powder-keg", "action", {"type": "stop"}, "Reactor's action"),
    ("powder-keg", "config", {"players": 3, "variants": ["double-simpler"], "starter": 0, "points": None,
                              "max_decisions": None, "max_rounds": None}, "no such variant"),
    ("powder-keg", "event", {"type": "give", "from": 1, "to": 0, "moved": False, "card": "7"},
     "a card given from an empty hand"),
    ("powder-keg", "observation", None, "a King in hand"),
])
def test_what_the_rules_never_send_is_rejected(game: str, kind: str, value: Any, why: str) -> None:
    if value is None:  # derived from a real observation
        obs, _, _, _ = sample(game)
        value = {**obs, "hand": ["K", *obs["hand"]]}
    assert not valid(game, kind, value), why


# -- the docs say what the schemas say ----------------------------------------------------------------


def section(text: str, word: str) -> str:
    """The one ``## `` section whose heading has ``word``, up to the next ``## `` heading."""
    parts = re.split(r"^(?=## )", text, flags=re.M)
    found = [p for p in parts if p.startswith("## ") and word in p.splitlines()[0].lower()]
    assert len(found) == 1, f"{len(found)} sections about {word!r}"
    return found[0]


def table_names(text: str) -> set[str]:
    """The backquoted names in the first cell of each row of the tables in ``text``."""
    names: set[str] = set()
    for line in text.splitlines():
        if line.startswith("|") and not set(line) <= set("|-: "):
            names.update(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return names


def schema_names(game: str) -> dict[str, set[str]]:
    defs = REGISTRY[game].schema()["definitions"]
    return {
        "observation": set(defs["observation"]["properties"]),
        "actions": {d.removeprefix("action_") for d in defs if d.startswith("action_")},
        "events": {d.removeprefix("event_") for d in defs if d.startswith("event_")},
        "configuration": set(defs["config"]["properties"]),
    }


@pytest.mark.parametrize("game", GAMES)
def test_the_spec_names_everything_the_schema_has(game: str) -> None:
    text = SPEC[game].read_text(encoding="utf-8")
    for word, names in schema_names(game).items():
        documented = table_names(section(text, word))
        assert documented == names, (f"{SPEC[game].name}, section on {word}: missing {sorted(names - documented)}, "
                                     f"not in the schema {sorted(documented - names)}")


@pytest.mark.parametrize("game", GAMES)
def test_the_spec_names_every_field_of_every_event(game: str) -> None:
    defs = REGISTRY[game].schema()["definitions"]
    rows = {}
    for line in section(SPEC[game].read_text(encoding="utf-8"), "events").splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 3 and (name := re.fullmatch(r"\s*`(\w+)`\s*", cells[1])):
            rows[name.group(1)] = set(re.findall(r"`([^`]+)`", cells[2]))
    for event, fields in rows.items():
        missing = set(defs[f"event_{event}"]["properties"]) - {"type"} - fields
        assert not missing, f"{SPEC[game].name}: the {event} event's row does not name {sorted(missing)}"


def json_examples(text: str) -> list[Any]:
    """Every value in the ```json blocks of a page: a block is one value, or one value per line."""
    found = []
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        try:
            found.append(json.loads(block))
        except ValueError:
            found.extend(json.loads(line) for line in block.splitlines() if line.strip())
    return found


@pytest.mark.parametrize("game", GAMES)
def test_the_spec_examples_validate(game: str) -> None:
    examples = json_examples(SPEC[game].read_text(encoding="utf-8"))
    assert len(examples) >= 5
    root = fastjsonschema.compile(REGISTRY[game].schema())
    kinds = Counter()
    for example in examples:
        root(copy.deepcopy(example))
        kinds[next(k for k in ("observation", "action", "event", "config") if valid(game, k, example))] += 1
    assert kinds["observation"] and kinds["action"] and kinds["event"], kinds


def test_the_protocol_readme_examples_carry_valid_game_payloads() -> None:
    """protocol/README.md's requests (observations there are cut short, so not those), answers and
    game_over events are each valid for the game of the request."""
    text = (ROOT / "protocol" / "README.md").read_text(encoding="utf-8")
    messages, buffer = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("bot: ", "ref: ")):
            buffer = stripped[5:]
        elif buffer and stripped and not stripped.startswith(("#", "```")):
            buffer += " " + stripped
        else:
            continue
        try:
            messages.append(json.loads(buffer))
            buffer = ""
        except ValueError:
            pass
    requests = [r for m in messages for r in (m["requests"] if m["type"] == "requests" else [m])
                if r["type"] == "request"]
    assert {r["observation"]["game"] for r in requests} == set(GAMES)
    for request in requests:
        game = request["observation"]["game"]
        assert valid(game, "legal", request["legal"]), request["legal"]
        assert all(valid(game, "event", e) for e in request["events"]), request["events"]
        assert all(valid(game, "action", f["action"]) for f in request["forced"])
    starts = [m for m in messages if m["type"] == "game_start"]
    assert starts and all(valid("reactor", "config", m["config"]) for m in starts)
    overs = [m for m in messages if m["type"] == "game_over"]
    assert overs and all(valid("reactor", "event", e) for m in overs for e in m["events"])
    answers = [a for m in messages if m["type"] in ("action", "actions")
               for a in (m["actions"] if m["type"] == "actions" else [m])]
    assert answers and all(any(valid(g, "action", a["action"]) for g in GAMES) for a in answers)


def test_the_protocol_readme_shows_how_to_check_an_action(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its example, run on the file `arena schema --game reactor` writes: the last line raises."""
    text = (ROOT / "protocol" / "README.md").read_text(encoding="utf-8")
    part = section(text, "what a game sends")
    assert "arena schema --game reactor > reactor.schema.json" in part
    lines = re.search(r"```python\n(.*?)```", part, flags=re.S).group(1).rstrip().splitlines()
    done = runner.invoke(app, ["schema", "--game", "reactor"])
    (tmp_path / "reactor.schema.json").write_text(done.output)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    exec("\n".join(lines[:-1]), namespace)
    with pytest.raises(fastjsonschema.JsonSchemaValueException):
        exec(lines[-1], namespace)


# -- arena schema --game -------------------------------------------------------------------------------


runner = CliRunner()


@pytest.mark.parametrize("game", GAMES)
def test_arena_schema_prints_a_games_schema(game: str) -> None:
    done = runner.invoke(app, ["schema", "--game", game])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output) == REGISTRY[game].schema()


def test_arena_schema_alone_still_prints_the_protocols() -> None:
    from protocol.messages import schema

    done = runner.invoke(app, ["schema"])
    assert done.exit_code == 0 and json.loads(done.output) == schema()


def test_arena_schema_of_an_unknown_game_is_a_bad_argument() -> None:
    from arena.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["schema", "--game", "chess"])
    assert stopped.value.code == 2


def test_a_game_without_its_schema_file_says_so() -> None:
    from dataclasses import replace

    from arena.games.base import _game_schema

    class Elsewhere(REGISTRY["reactor"].state_class):  # type: ignore[misc, valid-type]
        __slots__ = ()

    Elsewhere.__module__ = "arena.games"  # a package with no schema.json
    with pytest.raises(GameError, match="ships no schema.json"):
        replace(REGISTRY["reactor"], state_class=Elsewhere).schema()
    _game_schema.cache_clear()
