"""Referee and Session: bot processes kept warm across the matches of one or more lineups."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena import sandbox
from arena.bots.spec import BotSpec
from arena.games import Game, GameConfig
from arena.games.match import Match
from arena.referee.config import RefereeConfig
from arena.referee.link import Links
from arena.referee.logs import kept_log
from arena.referee.reports import GameReport, MatchPlan, MatchReport
from arena.referee.seat import Seat
from arena.referee.inplay import GameInPlay, MatchInPlay
from arena.referee.table import fewer_collections, Table, tally
from arena.referee.workroot import (
    OWNER_FILE,
    WORKROOT_PREFIX,
    remove_stale_workroots,
    socket_parent,
)


class Referee:
    """Plays matches between bot programs; it owns the sockets of the bots it starts (:class:`Links`)."""

    def __init__(self, config: RefereeConfig | None = None) -> None:
        self.config = config or RefereeConfig()
        self.links = Links()
        self.swept = False  # whether its first session swept what killed referees left

    def sweep(self) -> None:
        """Once per referee, as its first session starts: stop the bots and remove the folders
        and groups that referees killed before they could left behind.  Not at every session: a
        worker's referee starts one for each seat rotation, and the scan of every process alone
        took about 20 ms each time."""
        if self.swept:
            return
        remove_stale_workroots()
        sandbox.reap_orphans()
        sandbox.reap_stale_groups()
        sandbox.remove_stale_workdirs()
        self.swept = True

    def close(self) -> None:
        # Every socket it opened, also one left open by Ctrl-C between its being made and a
        # seat keeping it: closing never waits for a peer (what was not sent is dropped).
        self.links.close_all()

    def __enter__(self) -> "Referee":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def session(self) -> "Session":
        """Keep bot processes warm across several matches (e.g. the seat rotations of a table)."""
        return Session(self)

    def play_match(self, game: Game, config: GameConfig, bots: list[BotSpec], **kwargs: Any) -> MatchReport:
        """Play one match in a session of its own: every bot is started for it and stopped after."""
        with self.session() as session:
            return session.play_match(game, config, bots, **kwargs)


class Session:
    """Bot processes shared by consecutive matches: each bot is started once and restarted only
    after a fault.  A bot's seat may change from one lineup to the next (``welcome`` and
    ``game_start`` say which); two seats of one match never share a process.

    Matches of one lineup can be played at the same time (:meth:`play_matches`): when every bot
    offered it in its hello, up to ``RefereeConfig.concurrent`` games are in play at once, their
    requests interleaved, so a bot process wakes once for several decisions.
    """

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.config = referee.config
        self.players: dict[tuple[BotSpec, int], Seat] = {}
        referee.sweep()
        self.workroot = Path(tempfile.mkdtemp(prefix=WORKROOT_PREFIX, dir=socket_parent()))
        os.chmod(self.workroot, 0o711)  # bots' uids must reach their own socket directory inside
        (self.workroot / OWNER_FILE).write_text(str(os.getpid()))
        self.last_report: dict[tuple[BotSpec, int], GameReport] = {}
        self.lingered: set[str] = set()  # bots that did not exit on shutdown when the session closed

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every bot.  Stderr a bot wrote after its last game is added to that game's report
        (and record), which a caller that keeps the reports sees (``arena play``, ``check``);
        a tournament stores each game the moment it ends (``on_game``), so there that tail is
        not in the stored log: a stored game never changes."""
        for key, seat in self.players.items():
            tail = seat.stop()
            if seat.lingered:
                self.lingered.add(seat.spec.name)
            report = self.last_report.get(key)
            if tail and report is not None:
                # Bounded as the game's own log was: a chatty bot writes on after its last game.
                faulted = any(f.seat == seat.index for f in report.faults)
                report.logs[seat.index] = kept_log(report.logs.get(seat.index, "") + tail, faulted=faulted, spent=0)
                report.record["logs"][str(seat.index)] = report.logs[seat.index]
        self.players.clear()
        shutil.rmtree(self.workroot, ignore_errors=True)

    def play_match(
        self,
        game: Game,
        config: GameConfig,
        bots: list[BotSpec],
        *,
        seed: str,
        match_id: str = "match",
        done: list[Any] | None = None,
        on_game: Callable[[GameReport], None] | None = None,
    ) -> MatchReport:
        """Play a match: games until a seat reaches the game's points (Reactor: one game).

        ``done`` holds the results (:class:`~arena.games.base.GameResult`) of games of this
        match already played and stored (a resumed match goes on from there); ``on_game`` is
        called as soon as each game is over, so a caller can store it before the next begins.
        """
        plan = MatchPlan(seed, match_id, tuple(done or ()))
        hook = None if on_game is None else (lambda _number, report: on_game(report))
        return self.play_matches(game, config, bots, [plan], on_game=hook)[0]

    def play_matches(
        self,
        game: Game,
        config: GameConfig,
        bots: list[BotSpec],
        plans: list[MatchPlan],
        *,
        on_game: Callable[[int, GameReport], None] | None = None,
        on_match: Callable[[int, MatchReport], None] | None = None,
    ) -> list[MatchReport]:
        """Play several matches of one lineup (the same bots in the same seats), as many games
        at once as the bots offered; ``on_game(i, report)`` and ``on_match(i, report)`` are
        called, with the index of the plan, as soon as each game and each match is over."""
        if len(bots) != config.players:
            raise ValueError(f"{len(bots)} bots for {config.players} seats")
        game.check_config(config)
        names = [b.name for b in bots]
        keys = [(spec, bots[:i].count(spec)) for i, spec in enumerate(bots)]
        seats = []
        for index, key in enumerate(keys):
            if key not in self.players:
                self.players[key] = Seat(index, key[0], self.referee.links, self.config, self.workroot)
            seat = self.players[key]
            seat.index = index
            if seat.playing or seat.pending:  # left over by a table that ended in an error
                seat.playing.clear()
                seat.pending.clear()
                seat.outbox.clear()
                seat.retiring = True  # its answers to that table may still come: start afresh
            seats.append(seat)
        n = len(seats)
        runs = [MatchInPlay(i, Match(game, config if plan.starter is None else replace(config, starter=plan.starter),
                              list(plan.done)), plan.seed, plan.match_id,
                     faults_in_a_row=[0] * n, starts=[0] * n, log_chars=[0] * n) for i, plan in enumerate(plans)]
        for run, plan in zip(runs, plans):
            for standings in plan.standings:
                for seat, counted in enumerate(standings):
                    tally(run, seat, counted, self.config.faults_to_disqualify)
        table = Table(self.config, self.last_report, game, seats, names, keys, list(config.variants))
        with fewer_collections():
            return self._play(table, runs, on_game, on_match)

    def _play(self, table: Table, runs: list[MatchInPlay], on_game: Callable[[int, GameReport], None] | None,
              on_match: Callable[[int, MatchReport], None] | None) -> list[MatchReport]:
        """Start games, advance each to its next request, wait for answers; until all are over."""
        seats = table.seats
        reports: list[MatchReport | None] = [None] * len(runs)
        queue = deque(runs)
        live: list[GameInPlay] = []
        while queue or live:
            table.start_games(queue, live)
            if not live and queue and not queue[0].match.over:
                raise RuntimeError("no game could be started")  # a bug: nothing is in play to wait for
            for g in list(live):
                if g.asked is None and table.advance(g):
                    live.remove(g)
                    run = g.run
                    report = table.finish(g)
                    if on_game is not None:
                        on_game(run.number, report)
                    if not run.match.over:
                        queue.append(run)
            for run in table.ended:
                reports[run.number] = table.match_report(run)
                if on_match is not None:
                    on_match(run.number, reports[run.number])  # type: ignore[arg-type]
            table.ended.clear()
            table.flush()
            # Every answer is awaited before the games move on: the bots then get their next
            # requests together, in as few frames and wake-ups as possible.
            while any(seat.pending for seat in seats):
                table.collect()
        return reports  # type: ignore[return-value]
