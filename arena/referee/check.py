"""``arena check``: validate a bot before it enters a tournament, with a report its author can act on.

The bot plays full matches against copies of itself through the real referee and sandbox:
the handshake, every decision, the timing, and whatever it wrote to stderr.  A bot that offers to
play several games at once (``hello.concurrent``) is held to it: its matches are interleaved, and
its requests come in batches if it offered ``batch``.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.games import Game, GameConfig, get_game
from arena.referee import BotSpec, MatchPlan, MatchReport, Referee, RefereeConfig
from arena.referee.hints import program_problems, stderr_problems
from arena.referee.logs import shown_line

MATCHES = 3  # self-play matches: enough to interleave the games of a bot that offers it
SEED = "check"  # fixed by default, so a report can be reproduced
SHOWN_FAULTS = 5  # fault lines in the text report (the JSON report has them all)


@dataclass(slots=True)
class CheckReport:
    """What ``arena check`` found; ``ok`` only if the bot played cleanly and in time."""

    bot: str
    game: str
    ok: bool
    hello_name: str | None
    startup_ms: int | None
    concurrent: int
    batch: bool
    seed: str  # with ``matches``, what replays the same deals
    matches: int  # self-play matches asked for (each played again with every variant on, if any)
    variant_matches: int  # those played again with every variant on (0 for a game without variants)
    matches_played: int  # of matches + variant_matches: fewer if the check stopped early
    games: int
    decisions: int
    median_ms: float | None
    max_ms: float | None
    decision_limit_ms: int
    faults: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    stderr: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        """The human-readable report."""
        verdict = "OK" if self.ok else "FAILED"
        out = [f"{verdict}: {self.bot} as a {self.game} bot"]
        out.append(f"  handshake: {'hello as ' + repr(self.hello_name) if self.hello_name else 'no valid hello'}"
                   + (f" after {self.startup_ms} ms" if self.startup_ms is not None else ""))
        again = f" + {self.variant_matches} with every variant on" if self.variant_matches else ""
        asked = self.matches + self.variant_matches
        over = (f"{self.matches} match(es){again}" if self.matches_played == asked else
                f"{self.matches_played} match(es), of the {self.matches}{again} asked for")
        out.append(f"  played {self.games} game(s) over {over} (seed {self.seed!r}), "
                   f"answered {self.decisions} decision(s)")
        out.append(f"  games at once: {self.concurrent} offered" + (", so its self-play games were interleaved"
                   if self.concurrent > 1 else " (hello.concurrent not sent): one game at a time")
                   + ("; requests and answers in batches (hello.batch)" if self.batch else ""))
        if self.median_ms is not None:
            out.append(f"  thinking time: median {self.median_ms:.1f} ms, max {self.max_ms} ms "
                       f"(limit {self.decision_limit_ms} ms per decision)")
        for fault in self.faults[:SHOWN_FAULTS]:
            where = f"seat {fault['seat']}, game {fault['game_id']}" + (
                f", decision {fault['decision']}" if fault.get("decision") is not None else "")
            out.append(f"  fault: {fault['kind']} ({where}): {fault['message']}")
        if len(self.faults) > SHOWN_FAULTS:
            out.append(f"  ... and {len(self.faults) - SHOWN_FAULTS} more fault(s) (--json lists them all)")
        for problem in self.problems:
            out.append(f"  problem: {problem}")
        if self.stderr.strip():
            first = self.faults[0] if self.faults else None
            out.append("  stderr (last lines)" + (f" of seat {first['seat']} in game {first['game_id']}, where "
                                                   "the first fault happened:" if first else ":"))
            out.extend("    " + shown_line(line) for line in self.stderr.strip().splitlines()[-15:])
        return out


def check_bot(spec: BotSpec, game_name: str, *, players: int | None = None, seed: str = SEED,
              matches: int = MATCHES, config: RefereeConfig | None = None) -> CheckReport:
    """Play ``matches`` self-play matches with ``spec`` in every seat (interleaved if it offers) and
    judge it.  The deals come from ``seed``: more matches or other seeds find rarer bugs, and the
    same seed and count play the same deals again."""
    if matches < 1:
        raise ValueError(f"matches must be at least 1, not {matches}")
    game = get_game(game_name)
    config = config or RefereeConfig()
    seats = players or game.min_players
    configs = [GameConfig(players=seats, points=1)]
    if game.variants:  # the same matches again with every variant on: a bot must handle them too
        configs.append(GameConfig(players=seats, points=1, variants=tuple(game.variants)))
    plans = [MatchPlan(f"{seed}:{m}", f"check{m}") for m in range(matches)]
    problems = program_problems(spec)  # before it plays: what is wrong with the program as given
    played = _self_play(spec, game, seats, configs, plans, config)
    return _judged(spec, game, played, config, problems, seed=seed, matches=matches,
                   variant_matches=matches if len(configs) > 1 else 0)


@dataclass(slots=True)
class _SelfPlay:
    """What the check's self-play left to judge."""

    reports: list[MatchReport]
    never_started: bool  # no copy of the bot said hello in the first match: the check stopped there
    lingered: bool  # a copy did not exit on `shutdown`, and was killed


def _self_play(spec: BotSpec, game: Game, seats: int, configs: list[GameConfig], plans: list[MatchPlan],
               config: RefereeConfig) -> _SelfPlay:
    """The self-play matches, under each game config in turn, with copies of ``spec`` in every seat."""
    bots = [BotSpec(spec.name, spec.command, spec.expose) for _ in range(seats)]
    reports: list[MatchReport] = []
    never_started = False
    with Referee(config) as referee, referee.session() as session:
        for number, game_config in enumerate(configs):
            todo = [MatchPlan(p.seed, f"{p.match_id}-{number}" if number else p.match_id) for p in plans]
            if number == 0:
                # The first match alone: a bot that never says hello is not started again for
                # every game of every match (each start waits startup_ms).
                reports += session.play_matches(game, game_config, bots, todo[:1])
                if all(name is None for name in reports[0].hello_names):  # no seat's copy ever started
                    never_started = True
                    break
                todo = todo[1:]
            if todo:
                reports += session.play_matches(game, game_config, bots, todo)
    return _SelfPlay(reports, never_started, bool(session.lingered))


def _judged(spec: BotSpec, game: Game, played: _SelfPlay, config: RefereeConfig, problems: list[str], *,
            seed: str, matches: int, variant_matches: int) -> CheckReport:
    """The report on what self-play showed: its faults, its timing, and every problem found, after
    ``problems`` (those of the program itself)."""
    if played.never_started:
        problems.append("the bot never sent a valid hello, so the check stopped after the first match")
    if played.lingered:
        problems.append("the bot did not exit within 0.5 s of `shutdown` and was killed: every stop of it "
                        "(each match's end, each restart) waits that long; exit when `shutdown` arrives")
    report = played.reports[0]
    games = [g for r in played.reports for g in r.games]
    times = [d["ms"] for g in games for d in g.record["decisions"] if "ms" in d]
    faults = [{**f.to_json(), "game_id": g.game_id} for g in games for f in g.faults]
    limit = config.limits.decision_ms
    # A bot this close to its limit times out on a busier machine: the check fails it.
    too_slow = bool(times) and max(times) > limit * 0.8
    if too_slow:
        problems.append(f"a decision took {max(times)} ms, close to the {limit} ms limit")
    started = [ms for ms in report.startup_ms if ms is not None]
    if started and max(started) > config.limits.startup_ms * 0.5:
        problems.append(f"start-up took {max(started)} ms (limit {config.limits.startup_ms} ms)")
    if not times and not faults:
        problems.append("the bot was never asked a decision (every decision had a single legal action)")
    if faults:  # where the first fault happened: its traceback, not the other seats' chatter
        first = next(g for g in games if g.faults)
        logs = first.logs.get(first.faults[0].seat, "")
    else:
        logs = "".join(text for g in games for _, text in sorted(g.logs.items()))
    problems += stderr_problems("".join(text for g in games for text in g.logs.values()), spec)
    return CheckReport(
        bot=spec.name,
        game=game.name,
        ok=not faults and not too_slow,
        hello_name=report.hello_names[0],
        startup_ms=started[0] if started else None,
        concurrent=report.concurrent[0] if report.concurrent else 1,
        batch=bool(report.batch and report.batch[0]),
        seed=seed,
        matches=matches,
        variant_matches=variant_matches,
        matches_played=len(played.reports),
        games=len(games),
        decisions=len(times),
        median_ms=statistics.median(times) if times else None,
        max_ms=max(times) if times else None,
        decision_limit_ms=limit,
        faults=faults,
        problems=problems,
        stderr=logs,
    )
