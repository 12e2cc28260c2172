"""A tournament bound to a store: its bots, its schedule, what is stored, what to play, its ratings."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from arena import ratings as rating
from arena.bots.package import pack_target
from arena.ratings.confidence import Ranking, ranking_confidence
from arena.ratings.stop import StopDecision, StopRule
from arena.storage.registry import current_version, find_version, materialize, register
from arena.core import deals, ids
from arena.core.deals import deal_seed
from arena.core.ids import GameId
from arena.errors import ConfigError, StorageError, UnknownBot
from arena.execution import (
    Event,
    Executor,
    GameFinished,
    MatchFailed,
    MatchFinished,
    PlayConfig,
    Task,
    executor_for,
    iter_jobs,
    job_size,
    table_config,
)
from arena.games import Game, GameConfig, GameResult, get_game
from arena.games.match import Match
from arena.referee import BotSpec, GameReport, RefereeConfig
from arena.referee.standing import out_of_match, standing
from arena.sandbox import Resources
from arena.storage import GameRow, Store, seat_results
from arena.tournament.file import RUN_ONLY_FIELDS, comparable, growth  # RUN_ONLY_FIELDS: settings a resumed run may change
from arena.tournament.spec import TournamentSpec
from arena.tournament.formats import SCHEDULE, Format, Pairing, Played, Results, get_format
from protocol.messages import DEFAULT_WALL_FACTOR, Limits

log = logging.getLogger("arena.tournament")


@dataclass(slots=True)
class Progress:
    """What the progress display shows; updated by the coordinator only."""

    matches_total: int = 0
    matches_done: int = 0
    matches_played: int = 0  # of matches_done, those played in this run (not found stored)
    games_done: int = 0
    games_skipped: int = 0
    started: float = field(default_factory=time.monotonic)
    games_max: int | None = None  # with a stop rule: its max_games (matches_total is then unknown: 0)
    blocks_done: int = 0  # with a stop rule: blocks played and judged
    decision: StopDecision | None = None  # with a stop rule: the latest, after each block

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.games_done / elapsed if elapsed > 0 else 0.0


@dataclass(slots=True)
class TournamentOutcome:
    """How a run went: games played now, games found already stored, and the final table."""

    tournament: str
    played: int
    skipped: int
    leaderboard: list[Any]
    errors: list[str]
    stop: StopDecision | None = None  # with a stop rule: why the run stopped, pair by pair


def referee_config(spec: TournamentSpec) -> RefereeConfig:
    sandbox = dict(spec.sandbox)
    mode = sandbox.pop("mode", "auto")
    limits = Limits(decision_ms=spec.time["decision"], game_ms=spec.time["game"], startup_ms=spec.time["startup"],
                    wall_factor=spec.time.get("wall_factor", DEFAULT_WALL_FACTOR))
    return RefereeConfig(limits=limits, sandbox_mode=mode, resources=Resources(**sandbox),
                         concurrent=spec.concurrent, faults_to_disqualify=spec.faults_to_disqualify)


def game_result(places: list[int], forfeits: list[int]) -> GameResult:
    """The result of a stored game, as the match bookkeeping needs it."""
    firsts = [s for s, p in enumerate(places) if p == 1]
    return GameResult(tuple(places), firsts[0] if len(firsts) == 1 else None, forfeits=tuple(forfeits))


@dataclass(slots=True)
class Stored:
    """A tournament's stored games: results by match id and game number, and who sat where."""

    results: dict[str, dict[int, GameResult]] = field(default_factory=dict)
    seats: dict[str, tuple[str, ...]] = field(default_factory=dict)  # match id -> bot names by seat
    # match id -> game number -> each seat's standing towards disqualification
    standings: dict[str, dict[int, tuple[str, ...]]] = field(default_factory=dict)


def stored_results(store: Store, tournament: str) -> Stored:
    """Stored game results of a tournament, by match id and game number, with each match's bots."""
    seats: dict[str, dict[int, tuple[int, bool, str]]] = {}
    for row in store.iter_results(tournament=tournament):
        seats.setdefault(row.game_id, {})[row.seat] = (row.place, row.forfeited, row.bot)
    collateral: dict[tuple[str, int], list[bool]] = {}
    for game_id, fault in store.tournament_faults(tournament):
        collateral.setdefault((game_id, fault.seat), []).append(fault.collateral)
    stored = Stored()
    for game_id, rows in seats.items():
        match_id, number = (parsed := GameId.parse(game_id)).match, parsed.number
        places = [rows[s][0] for s in sorted(rows)]
        forfeits = [s for s in sorted(rows) if rows[s][1]]
        stored.results.setdefault(match_id, {})[number] = game_result(places, forfeits)
        stored.seats[match_id] = tuple(rows[s][2] for s in sorted(rows))
        stored.standings.setdefault(match_id, {})[number] = tuple(
            standing(rows[s][1], collateral.get((game_id, s), [])) for s in sorted(rows))
    return stored


def _comparable(key: str, value: Any, game: Game, seats: Any) -> Any:
    """A spec's value as compared on resume, so that two files that play the same games agree:
    the bots' entries by name only, in any order (the scheduler sorts the field); a default
    written out equal to one left out (``points``, a ``[sandbox]`` limit, ``min_seats`` equal to
    ``seats``); variants in any order (they are independent switches).  Each field of the file
    says how (:func:`arena.tournament.file.comparable`)."""
    return comparable(key, value, game, seats)


def _shown(key: str, value: Any) -> str:
    """A spec's value as a refusal to resume names it."""
    if key == "bots" and isinstance(value, list):
        return ", ".join(sorted(str(entry.get("name")) for entry in value))
    if value is None:
        return "none"
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)




def _packable(source: str) -> bool:
    """Whether a bot's source can still be read here (a moved project resumes from the store)."""
    try:
        pack_target(source)
    except UnknownBot:
        return False
    return True


class Tournament:
    """A tournament bound to a store: resolve bots, schedule, execute, rate."""

    def __init__(self, spec: TournamentSpec, store: Store) -> None:
        self.spec = spec
        self.store = store
        self.game: Game = get_game(spec.game)
        self.config: GameConfig = spec.game_config()
        self.id = spec.name
        self.versions = self._resolve_bots()
        self.deals: dict[str, str] = {}  # match id -> its deal, for the matches this run has met
        self.judge: _Judge | None = None  # the stop rule's view of the games, while a run has one

    def _resolve_bots(self) -> dict[str, BotSpec]:
        """Register bots given by path, look up the others; a resumed run uses the stored versions."""
        try:
            existing = self.store.tournament(self.id)
        except StorageError:
            existing = None
        wanted = self.spec.to_json()
        if existing is not None:
            stored = dict(existing.spec)
            version_ids = stored.pop("bot_versions", {})
            self.schedule = stored.pop("schedule", 1)  # stored before the rule had a number: the first
            self.deal_rule = stored.pop("deals", deals.PUBLIC_LABELS)  # begun before deals were keyed
            # Bots are compared by name here and by content below, not by path: a project moved
            # or copied elsewhere still resumes its tournament.
            # How many games are in play at once changes how fast, never what is played: a
            # resumed run may change it.
            seats = (stored.get("seats"), wanted.get("seats"))
            differ = sorted(k for k in stored.keys() | wanted.keys() if k not in RUN_ONLY_FIELDS
                            and _comparable(k, stored.get(k), self.game, seats[0])
                            != _comparable(k, wanted.get(k), self.game, seats[1]))
            # A longer schedule (games, rounds raised) plays the games it adds; a shorter one
            # would leave stored games outside it.
            longer = {k: g for k in differ if (g := growth(k, stored, wanted)) is not None}
            differ = [k for k in differ if k not in longer or longer[k] < 0]
            if differ:
                what = "; ".join(f"{k}: stored {_shown(k, stored.get(k))}, file {_shown(k, wanted.get(k))}"
                                 + (" (a tournament may grow, never shrink)" if k in longer else "")
                                 for k in sorted(differ, key=lambda k: k == "bots"))  # the long one last
                raise ConfigError(
                    f"tournament {self.id!r} is already in this database with other settings ({what}); "
                    "rename the tournament (field 'name') or use another --db"
                )
            grown = sorted(k for k, g in longer.items() if g > 0)
            if grown:
                log.info("tournament %r grows (%s): its stored games stay, the run plays the rest", self.id,
                         ", ".join(f"{k} {_shown(k, stored.get(k))} -> {_shown(k, wanted.get(k))}" for k in grown))
                self.store.grow_tournament(self.id, {**existing.spec, **{k: wanted.get(k) for k in grown}})
            versions = {name: self.store.bot_version(vid) for name, vid in version_ids.items()}
            for entry in self.spec.bots:
                if entry.source is not None and _packable(entry.source):
                    sha = pack_target(entry.source).sha256
                    if sha != versions[entry.name].sha256:
                        log.warning("bot %r: %s is not the version tournament %r began with; the tournament goes "
                                    "on with that one (version %d, stored in the database); rename the tournament "
                                    "to play this file", entry.name, entry.source, self.id,
                                    versions[entry.name].version)
        else:
            self.schedule = SCHEDULE
            self.deal_rule = deals.DEALS
            versions = {}
            # Registered names first: a name that is not there stops the run before any file is
            # registered, so a typo leaves the database as it was (and a new one is removed).
            for number, entry in enumerate(self.spec.bots):
                if entry.source is None:
                    try:
                        versions[entry.name] = find_version(self.store, entry.name)
                    except UnknownBot as exc:
                        raise UnknownBot(f"field 'bots[{number}]': {exc}, or give it a path in the file") from None
                    self._check_game(entry.name, versions[entry.name])
            for entry in self.spec.bots:
                if entry.source is not None:
                    before = current_version(self.store, entry.name)
                    versions[entry.name] = register(self.store, entry.source, name=entry.name, game=self.game.name)
                    if before is not None and before.sha256 != versions[entry.name].sha256:
                        log.warning("bot %r: %s is not its current content (version %d), so the tournament plays "
                                    "version %d; ratings are per name (its versions share one rating): name a "
                                    "version (NAME@N) or give a much changed bot a new name to rate it apart",
                                    entry.name, entry.source, before.version, versions[entry.name].version)
                    self._check_game(entry.name, versions[entry.name])
            twice = [n for n, v in versions.items() if [w.id for w in versions.values()].count(v.id) > 1]
            if twice:
                raise ConfigError(f"bots {' and '.join(sorted(twice))} are the same version; a tournament plays "
                                  "each version once (name another with NAME@N)")
            versions = {entry.name: versions[entry.name] for entry in self.spec.bots}  # in the file's order
            self.store.start_tournament(
                self.id, self.spec.name, self.game.name,
                {**wanted, "bot_versions": {n: v.id for n, v in versions.items()}, "schedule": SCHEDULE,
                 "deals": deals.DEALS},
                self.spec.seed,
            )
        self.version_ids = {name: v.id for name, v in versions.items()}
        # The key stays in this process: workers and bots get the match seeds made with it.
        self.key = self.store.deal_key() if self.deal_rule >= deals.KEYED else None
        return {name: materialize(self.store, v) for name, v in versions.items()}

    def _check_game(self, name: str, version: Any) -> None:
        if version.game != self.game.name:
            raise UnknownBot(f"bot {name!r} is a {version.game} bot, not {self.game.name}")

    # -- scheduling -----------------------------------------------------------------------------

    def _task(self, pairing: Pairing, done: Stored) -> Task | None:
        """The task for a pairing, or ``None`` if its match is already complete in the store."""
        match_id = ids.match_id(self.id, pairing.id)
        sat = done.seats.get(match_id)
        if sat is not None and sat != pairing.seats:
            # The schedule no longer says what was played (a Swiss paired on other results):
            # resuming would mix two schedules and credit games to the wrong bots.
            raise ConfigError(
                f"match {match_id} is stored with the bots {', '.join(sat)} but the schedule now seats "
                f"{', '.join(pairing.seats)}: this database's games of tournament {self.id!r} do not follow "
                "its schedule; play it again under another name or in another --db")
        stored = done.results.get(match_id, {})
        results = tuple(stored[i] for i in sorted(stored))
        standings = done.standings.get(match_id, {})
        ordered = tuple(standings[i] for i in sorted(standings))
        seats = len(pairing.seats)
        if results and (Match(self.game, table_config(self.config, seats), list(results)).over
                        # every seat disqualified: the referee ends such a match (nothing to decide)
                        or len(out_of_match(ordered, self.spec.faults_to_disqualify, seats)) == seats):
            return None
        deal = self.deal_key(pairing)
        bots = tuple(self.versions[name] for name in pairing.seats)
        return Task(pairing, match_id, self.match_seed(deal), bots, results, ordered)

    def match_seed(self, deal: str) -> str:
        """The seed of a match playing ``deal`` (a schedule label): secret, made with the
        database's key (a tournament begun before deals were keyed keeps its public labels).

        The tournament's name is part of it (a name has no ``:``): another tournament in the same
        database deals other games, whatever its seed, so the records of one published tell
        nothing of the next."""
        if self.key is None:
            return f"{self.spec.seed}:{deal}"
        return deal_seed(self.key, f"{self.id}:{self.spec.seed}:{deal}")

    @functools.cached_property
    def format(self) -> Format:
        """This tournament's format, under the rules it began with (``schedule``)."""
        return get_format(self.spec.format)(self.spec, self.schedule)

    def results(self) -> Results:
        """The stored part of each pairing's match, as the store holds it now."""
        done = stored_results(self.store, self.id)

        def played(pairing: Pairing) -> Played:
            match_id = ids.match_id(self.id, pairing.id)
            return Played(done.seats.get(match_id, pairing.seats), tuple(done.results.get(match_id, {}).values()))

        return played

    def standings(self, pairings: Iterable[Pairing]) -> dict[str, Fraction]:
        """The format's points of ``pairings`` from the stored results (Swiss: what it pairs on)."""
        return self.format.standings(pairings, self.results())

    # -- running ------------------------------------------------------------------------------

    def run(self, *, workers: int = 1, on_progress: Callable[[Progress], None] | None = None,
            cluster: str | None = None) -> TournamentOutcome:
        """Play everything not yet stored, then finish the tournament and rate it.  With a stop
        rule (``[stop]``), play block after block until the rule says stop.

        ``cluster``: play on a Dask cluster (``"local"`` or a scheduler address; see arena.execution.dask)."""
        progress = Progress()
        errors: list[str] = []
        rule = self.stop_rule()
        judge = self.judge = _Judge(self, rule) if rule is not None else None
        # Blocks skip what is stored, which is known before the first: read once, not per block
        # (every game played since is of a block already played).
        stored = stored_results(self.store, self.id) if judge is not None else None
        with contextlib.ExitStack() as stack:
            stack.enter_context(self.store.running(self.id))  # one run of a tournament at a time
            # One executor for every round: a cluster's client is connected once, when first needed.
            executor = stack.enter_context(executor_for(workers, cluster, self.play_config()))
            if judge is None:
                progress.matches_total = self.format.size()
                rounds = self.format.rounds(self.results)
            else:
                progress.games_max = judge.rule.max_games
                rounds = self.format.blocks(self.results)
            for round in rounds:
                pairings = round.pairings if judge is None else list(round.pairings)
                self._execute(pairings, executor, progress, on_progress, errors,
                              left=None if judge is None else len(pairings), done=stored)
                if errors:
                    # A later round may be paired on this one's results: not on a part of them.
                    # A rerun plays what is missing here, then goes on.
                    note = self.format.incomplete(round)
                    if note is not None and judge is None:
                        errors.append(note)
                        log.error("%s", note)
                    break
                if judge is not None:
                    progress.decision = judge.block(pairings)
                    progress.blocks_done += 1
                    if on_progress:
                        on_progress(progress)
                    if progress.decision.stop:
                        break
        self.judge = None
        if not errors:
            decision = progress.decision
            self.store.finish_tournament(self.id, decision.to_json() if decision is not None else None)
        board = self.rate()
        return TournamentOutcome(self.id, progress.games_done, progress.games_skipped, board, errors,
                                 progress.decision)

    def stop_rule(self) -> StopRule | None:
        """The file's ``[stop]`` as a rule, or None when the schedule is played whole."""
        stop = self.spec.stop
        if stop is None or stop.get("rule", "none") == "none":
            return None
        return StopRule(alpha=stop["alpha"], delta=stop["delta"], max_games=stop["max_games"])

    def play_config(self) -> PlayConfig:
        """What each of its jobs is played under."""
        return PlayConfig(referee_config(self.spec), self.game.name, self.config)

    def _execute(self, pairings: Iterable[Pairing], executor: Executor, progress: Progress,
                 on_progress: Callable[[Progress], None] | None, errors: list[str], left: int | None = None,
                 done: Stored | None = None) -> None:
        """Play with ``executor`` what of ``pairings`` is not stored yet, storing each game as it ends
        (``left``: the matches there are to play, when the schedule's size does not say; ``done``:
        what is stored, when the caller knows it)."""
        if done is None:
            done = stored_results(self.store, self.id)
        if on_progress:
            on_progress(progress)

        def tasks() -> Iterator[Task]:
            """The pairings still to play, as tasks; stored matches are counted and skipped."""
            for pairing in pairings:
                self.deals[ids.match_id(self.id, pairing.id)] = self.deal_key(pairing)
                task = self._task(pairing, done)
                if task is None:
                    progress.matches_done += 1
                    progress.games_skipped += len(done.results.get(ids.match_id(self.id, pairing.id), {}))
                else:
                    progress.games_skipped += len(task.done)
                    yield task
            if on_progress:
                on_progress(progress)

        def on_event(event: Event) -> None:
            match event:
                case GameFinished(task, report):
                    self.store_game(task, report)
                    progress.games_done += 1
                case MatchFinished():
                    progress.matches_done += 1
                    progress.matches_played += 1
                case MatchFailed(message=text):
                    progress.matches_done += 1  # a failed match is over too (a rerun retries it)
                    errors.append(text)
                    log.error("%s", text)
            if on_progress:
                on_progress(progress)

        # Sized on what is left to play (matches with stored games count as done): a resumed
        # tournament's remainder is still split across every worker.
        if left is None:
            left = progress.matches_total - len(done.results)
        left = max(left, 1)
        executor.run(iter_jobs(tasks(), job_size(left, executor.workers)), on_event)

    def store_game(self, task: Task, report: GameReport) -> None:
        """Commit one finished game (record, results, faults, stderr logs) in one transaction."""
        record = report.record
        result = record["result"]
        row = GameRow(
            id=report.game_id,
            game=self.game.name,
            seats=[self.version_ids[name] for name in task.pairing.seats],
            seat_names=tuple(task.pairing.seats),
            winner=result["winner"],
            record=record,
            tournament=self.id,
            variants=list(self.config.variants),
            capped=result["capped"],
            round=task.pairing.round,
            table_no=task.pairing.table,
            match_id=task.match_id,
            match_game=report.index,
            seed=record["seed"],
            started=report.started,
            finished=report.finished,
            duration_ms=report.duration_ms,
        )
        seats = seat_results(record)
        self.store.add_game(row, seats, report.faults, {s: t for s, t in report.logs.items() if t})
        if self.judge is not None:
            self.judge.played(task.match_id, [_SeatRow(report.game_id, task.pairing.seats[r.seat], r.place, r.forfeited)
                                              for r in seats])

    def deal_key(self, pairing: Pairing) -> str:
        """What a pairing's games share with other matches: the deal of a table's rotations
        (with duplicate deals), else the match alone; the unit of dependence of the stop rule."""
        return pairing.deal if self.spec.duplicate else f"{pairing.deal}:rot{pairing.rotation}"

    def deal_of(self, outcome: rating.GameOutcome) -> str:
        """The deal a stored game was played on (its match, for a match this run has not met)."""
        match = GameId.parse(outcome.game_id or "").match
        return self.deals.get(match, match)

    def ranking(self) -> Ranking:
        """How sure the order by mean place is now, from every stored game (the live view's)."""
        outcomes = list(rating.iter_outcomes(self.store.iter_results(tournament=self.id)))
        return ranking_confidence(outcomes, match_of=self.deal_of, rank_ranges=False)

    def rate(self) -> list[Any]:
        """Recompute the ratings from every stored game of this tournament and keep the history."""
        # Two streaming passes over the stored rows: memory does not grow with the tournament.
        table = rating.RatingTable(rating.make_env())
        outcomes = rating.iter_outcomes(self.store.iter_results(tournament=self.id))
        self.store.save_ratings(self.id, rating.rate_points(outcomes, table))
        outcomes = rating.iter_outcomes(self.store.iter_results(tournament=self.id))
        return rating.leaderboard(table, outcomes, self.store.fault_counts(tournament=self.id))


@dataclass(frozen=True, slots=True)
class _SeatRow:
    """A seat of a game this run stored, as :func:`arena.ratings.iter_outcomes` reads one."""

    game_id: str
    bot: str
    place: int
    forfeited: bool


class _Judge:
    """The stop rule fed block by block with the stored games of the blocks played so far (never
    a game of a later block, so that an interrupted or extended run decides as one run would).

    The stored games are read once, when the run starts, and each game the run stores is handed
    over as it is stored (:meth:`played`): reading every stored game again after each block made
    a long run's cost grow with the square of its games."""

    def __init__(self, tournament: Tournament, rule: StopRule) -> None:
        self.tournament = tournament
        self.rule = rule
        self.tracker = rule.tracker(tournament.deal_of)
        self.judged: set[str] = set()  # the matches of the blocks so far
        self.waiting: dict[str, list[rating.GameOutcome]] = {}  # match -> games not judged yet
        for outcome in rating.iter_outcomes(tournament.store.iter_results(tournament=tournament.id)):
            self.waiting.setdefault(GameId.parse(outcome.game_id or "").match, []).append(outcome)

    def played(self, match_id: str, seats: list[_SeatRow]) -> None:
        """A game this run has just stored (a rateable one is judged with its block)."""
        for outcome in rating.iter_outcomes(seats):
            if match_id in self.judged:  # not met: a block's games are stored before it is judged
                self.tracker.add(outcome)
            else:
                self.waiting.setdefault(match_id, []).append(outcome)

    def block(self, pairings: Iterable[Pairing]) -> StopDecision:
        """Take in one more block (its games are stored), then decide."""
        t = self.tournament
        for pairing in pairings:
            match = ids.match_id(t.id, pairing.id)
            self.judged.add(match)
            self.tracker.extend(self.waiting.pop(match, ()))
        return self.tracker.decide()
