"""Several games of one lineup in play at once (``hello.concurrent``), with real bot processes.

The referee interleaves the games' requests when every bot offers it; results are those of
playing the games one at a time, time is charged per request (not for the queue behind it),
and a fault costs what the protocol says: a bad answer forfeits its own game, a dead or stuck
bot forfeits every game it was playing (without counting those towards disqualification).
"""

from __future__ import annotations

import time
import uuid

import pytest

from arena.referee import seat as seat_module
from arena.referee import table as table_module
from arena.games import GameConfig, get_game
from arena.games.record import replay
from arena.referee import BotSpec, MatchPlan, Referee, RefereeConfig, bot_spec
from protocol.messages import Limits
from common import MODE, PY, RANDOM, ZOO, bot_processes, tagged, wait_until

FAST = Limits(decision_ms=1000, game_ms=20_000, startup_ms=8_000, wall_factor=2)


def concurrent_zoo(mode: str, game: str) -> BotSpec:
    path = str(ZOO / "zoo_concurrent.py")
    return BotSpec(f"concurrent-{mode}", (PY, path, "{endpoint}", mode, game), (path,))


def play_lineup(first: BotSpec, matches: int = 12, *, players: int = 3, points: int = 1,
                limits: Limits = FAST, monkeypatch: pytest.MonkeyPatch | None = None, **config):
    """``matches`` matches of one lineup in one session; returns their reports and the most
    games that were in play at once."""
    game = get_game("reactor")
    tag = f"tag-{uuid.uuid4().hex}"
    bots = [tagged(first, tag)] + [tagged(bot_spec(RANDOM, f"random{i}"), tag) for i in range(1, players)]
    most = [0]
    if monkeypatch is not None:
        start_game = table_module.Table.start_game

        def spy(self, run):
            most[0] = max(most[0], 1 + max(len(s.playing) for s in self.seats))
            return start_game(self, run)

        monkeypatch.setattr(table_module.Table, "start_game", spy)
    plans = [MatchPlan(f"lineup:{i}", f"m{i}") for i in range(matches)]
    with Referee(RefereeConfig(limits=limits, sandbox_mode=MODE, **config)) as referee, referee.session() as session:
        reports = session.play_matches(game, GameConfig(players=players, points=points), bots, plans)
    assert bot_processes(tag) == [], "a bot process survived the session"
    for report in reports:
        for g in report.games:
            replay(game, g.record)
    return reports, most[0]


def outcomes(reports) -> list[tuple]:
    return [(g.game_id, g.record["result"]["places"], [(d["seat"], d["action"]) for d in g.record["decisions"]])
            for r in reports for g in r.games]


def test_interleaved_games_play_exactly_as_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random bots re-seed per game, so every game is decided by its seeds alone: interleaving
    changes nothing but the cost.  The bots are started once for all the matches."""
    together, most = play_lineup(bot_spec(RANDOM, "random0"), matches=12, points=2, monkeypatch=monkeypatch)
    apart, one = play_lineup(bot_spec(RANDOM, "random0"), matches=12, points=2, monkeypatch=monkeypatch, concurrent=1)
    assert most == 12 and one == 1
    assert outcomes(together) == outcomes(apart)
    assert sum(r.starts[0] for r in together) == 1 and all(sum(r.starts[1:]) in (0, 2) for r in together)
    assert all(g.faults == [] for r in together for g in r.games)


def test_a_bot_that_offers_nothing_is_played_one_game_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot whose hello does not offer more (the default, e.g. the JavaScript bot) keeps the
    whole table at one game at a time."""
    plain = BotSpec("plain", (PY, str(ZOO / "zoo_raw.py"), "{endpoint}", "ok"), (str(ZOO / "zoo_raw.py"),))
    reports, most = play_lineup(plain, matches=4, monkeypatch=monkeypatch)
    assert most == 1
    assert all(g.faults == [] for r in reports for g in r.games)


@pytest.mark.perf  # timing bands of a bot's answers
def test_queued_requests_are_not_charged_for_the_wait() -> None:
    """A bot that uses 60 ms of CPU per answer, with requests of 8 games queued behind each
    other, never times out against a 250 ms limit: each request's clock starts when the bot could
    start on it (its previous answer), not when it was sent, so none is charged the CPU the bot
    spent on the requests before it (8 x 60 ms).  The bot spins rather than sleeps: the referee
    charges CPU time, so a sleeping bot would be charged nothing whatever the clock's start."""
    reports, _ = play_lineup(concurrent_zoo("spin:60", "none"), matches=8,
                             limits=Limits(decision_ms=250, game_ms=60_000, startup_ms=8_000))
    assert all(g.faults == [] for r in reports for g in r.games)
    times = [d["ms"] for r in reports for g in r.games for d in g.record["decisions"] if d["seat"] == 0 and "ms" in d]
    assert len(times) > 50 and 55 < sorted(times)[len(times) // 2] < 250 and max(times) < 250


def faults_by_game(reports) -> dict[str, list[tuple[int, str, str]]]:
    return {g.game_id: [(f.seat, f.kind, f.message) for f in g.faults] for r in reports for g in r.games}


def test_a_crash_forfeits_every_game_the_bot_was_playing() -> None:
    """Rule: a dead bot forfeits the game where it died and every game it played at the time
    (marked as played at the same time); it is restarted for the next games, and only the game
    where it faulted counts towards disqualification."""
    reports, _ = play_lineup(concurrent_zoo("crash", "m2-g0"), matches=12, faults_to_disqualify=1)
    faults = faults_by_game(reports)
    collateral = {g.game_id: [f.collateral for f in g.faults] for r in reports for g in r.games}
    # The crash is charged to the request the bot owed that the referee judged first: the game
    # where it died, unless (on a busy machine) an answer sent just before had not come in yet.
    primary = [g for g, flags in collateral.items() if flags == [False]]
    assert len(primary) == 1 and primary[0] in {f"m{i}-g0" for i in range(3)}, collateral
    died = primary[0]
    assert [(s, k) for s, k, _ in faults[died]] == [(0, "crash")]
    assert "same time" not in faults[died][0][2]
    others = [g for g, f in faults.items() if f and g != died]
    assert others, "no other game was in play when the bot crashed"
    for g in others:
        assert [(s, k) for s, k, _ in faults[g]] == [(0, "crash")] and f"in game {died}" in faults[g][0][2]
    assert all(collateral[g] == [True] for g in others)
    assert all(f["collateral"] == (g.game_id != died) for r in reports for g in r.games for f in g.record["faults"])
    later = [g for g, f in faults.items() if not f]
    assert later, "the restarted bot played no game"
    assert sum(r.starts[0] for r in reports) == 2
    # With a single fault to disqualify, only the match where it crashed disqualifies it.
    assert [(r.games[0].game_id, r.disqualified) for r in reports if r.disqualified] == [(died, [0])]


def test_a_bad_answer_forfeits_only_its_own_game() -> None:
    """Rule: an illegal action forfeits that game only; the bot plays its other games to the end
    and is then restarted."""
    reports, _ = play_lineup(concurrent_zoo("illegal", "m2-g0"), matches=12)
    faults = faults_by_game(reports)
    assert [(s, k) for s, k, _ in faults["m2-g0"]] == [(0, "illegal")]
    assert [g for g, f in faults.items() if f] == ["m2-g0"]
    assert sum(r.starts[0] for r in reports) == 2


def test_a_hung_bot_times_out_and_forfeits_the_games_it_held() -> None:
    reports, _ = play_lineup(concurrent_zoo("hang", "m1-g0"), matches=10,
                             limits=Limits(decision_ms=400, game_ms=20_000, startup_ms=8_000))
    faults = faults_by_game(reports)
    assert [(s, k) for s, k, _ in faults["m1-g0"]] == [(0, "timeout")]
    assert all([(s, k) for s, k, _ in f] == [(0, "timeout")] for f in faults.values() if f)
    assert any(not f for f in faults.values())
    assert sum(r.starts[0] for r in reports) == 2


def test_a_second_answer_is_stale_and_stops_the_bot() -> None:
    """Rule: an answer to no pending request is charged to the bot's oldest pending request;
    answers can then no longer be trusted to match requests, so the bot is stopped and forfeits
    every game it plays (one stale fault, the others marked as played at the same time)."""
    reports, _ = play_lineup(concurrent_zoo("twice", "m2-g0"), matches=12)
    faults = [f for fs in faults_by_game(reports).values() for f in fs]
    assert {(seat, kind) for seat, kind, _ in faults} == {(0, "stale")}
    assert len([f for f in faults if "same time" not in f[2]]) == 1
    assert len([f for r in reports for g in r.games for f in g.faults if not f.collateral]) == 1
    assert sum(r.starts[0] for r in reports) == 2


# -- batched frames (hello.batch) ----------------------------------------------------------------


def batch_zoo(mode: str, game: str) -> BotSpec:
    path = str(ZOO / "zoo_batch.py")
    return BotSpec(f"batch-{mode}", (PY, path, "{endpoint}", mode, game), (path,))


@pytest.fixture
def frame_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many answers each frame from a bot carried (the referee's view)."""
    sizes: list[int] = []
    answers = seat_module.Seat.answers

    def spy(self, frame):
        out = answers(self, frame)
        sizes.append(len(out))
        return out

    monkeypatch.setattr(seat_module.Seat, "answers", spy)
    return sizes


def test_batched_frames_play_exactly_as_separate_ones(frame_sizes: list[int]) -> None:
    """A bot that offered batch gets its requests of one moment in one frame and answers them in
    one: the games are those of one game at a time, only cheaper to play."""
    together, _ = play_lineup(batch_zoo("ok", "none"), matches=10, points=2)
    assert max(frame_sizes) > 1, "no frame carried several answers"
    frame_sizes.clear()
    apart, _ = play_lineup(batch_zoo("ok", "none"), matches=10, points=2, concurrent=1)
    assert max(frame_sizes) == 1
    assert outcomes(together) == outcomes(apart)
    assert all(g.faults == [] for r in together for g in r.games)


@pytest.mark.perf  # timing bands of a bot's answers
def test_a_frames_time_is_shared_by_its_answers(frame_sizes: list[int]) -> None:
    """Rule (protocol README, batch): the answers of one frame share its time equally, and the
    frame must come within the oldest request's deadline.  The bot uses 15 ms of CPU per request
    (spinning: the referee charges CPU time) and answers a whole batch (up to 8) at once: every decision is charged at least its own 15 ms
    (none is charged nothing, as if another had taken all the time) and none the batch's total."""
    reports, _ = play_lineup(batch_zoo("spin:15", "none"), matches=8,
                             limits=Limits(decision_ms=150, game_ms=60_000, startup_ms=8_000))
    assert sum(size > 2 for size in frame_sizes) > 10, "too few frames carried several answers"
    assert all(g.faults == [] for r in reports for g in r.games)
    times = [d["ms"] for r in reports for g in r.games for d in g.record["decisions"] if d["seat"] == 0 and "ms" in d]
    assert len(times) > 50 and min(times) >= 14 and sorted(times)[len(times) // 2] < 30 and max(times) < 100


def test_an_illegal_answer_in_a_batch_forfeits_only_its_game() -> None:
    reports, _ = play_lineup(batch_zoo("illegal", "m2-g0"), matches=12)
    faults = faults_by_game(reports)
    assert [(s, k) for s, k, _ in faults["m2-g0"]] == [(0, "illegal")]
    assert [g for g, f in faults.items() if f] == ["m2-g0"]
    assert sum(r.starts[0] for r in reports) == 2


def test_an_answer_breaking_the_schema_in_a_batch_forfeits_only_its_game() -> None:
    """Rule (protocol README, batch): an element wrong in itself costs only its own game; the
    frame's other answers count.  (Before, the whole frame was one schema fault: its other
    answers were dropped, timed out, and the bot lost every game it played.)"""
    reports, _ = play_lineup(batch_zoo("extrakey", "m2-g0"), matches=12)
    faults = faults_by_game(reports)
    assert [(s, k) for s, k, _ in faults["m2-g0"]] == [(0, "schema")]
    assert "invalid element of actions" in faults["m2-g0"][0][2]
    assert [g for g, f in faults.items() if f] == ["m2-g0"]
    assert sum(r.starts[0] for r in reports) == 2


@pytest.mark.parametrize("mode", ["dup", "invent", "noid"])
def test_a_repeated_or_invented_id_in_a_batch_is_stale(mode: str) -> None:
    """Rule: an answer to no pending request (here inside an actions frame) is stale; the bot is
    stopped and forfeits every game it plays, one of them counted as the fault."""
    reports, _ = play_lineup(batch_zoo(mode, "m2-g0"), matches=12)
    faults = [f for fs in faults_by_game(reports).values() for f in fs]
    assert {(seat, kind) for seat, kind, _ in faults} == {(0, "stale")}
    assert len([f for f in faults if "same time" not in f[2]]) == 1
    assert sum(r.starts[0] for r in reports) == 2


def test_an_unreadable_batch_answer_is_charged_to_one_game() -> None:
    """A frame that is not JSON cannot say which requests it answers: it is a malformed fault of
    the oldest request the bot owes; its other requests then time out (the bot never answers
    them) and cost their games too."""
    reports, _ = play_lineup(batch_zoo("garbage", "m2-g0"), matches=12,
                             limits=Limits(decision_ms=300, game_ms=20_000, startup_ms=8_000))
    faults = [f for fs in faults_by_game(reports).values() for f in fs]
    assert [kind for _, kind, _ in faults if kind != "timeout"] == ["malformed"]
    assert {seat for seat, _, _ in faults} == {0}
    assert any(not f for f in faults_by_game(reports).values())


def test_actions_from_a_bot_that_did_not_offer_batch_are_a_schema_fault() -> None:
    reports, _ = play_lineup(concurrent_zoo("actions", "m2-g0"), matches=12)
    faults = faults_by_game(reports)
    assert [(s, k) for s, k, _ in faults["m2-g0"]] == [(0, "schema")]
    assert 'unexpected message type "actions"' in faults["m2-g0"][0][2]
    assert [g for g, f in faults.items() if f] == ["m2-g0"]


def test_a_lineup_played_again_with_other_variants_is_welcomed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session that plays the same bots again with other variants (as `arena check` does for
    Powder Keg) welcomes them again, so welcome.variants always matches the games that follow."""
    sent: list[tuple[int, list[str]]] = []
    welcome = seat_module.Seat.welcome

    def spy(self, game, names, variants):
        sent.append((self.index, list(variants)))
        return welcome(self, game, names, variants)

    monkeypatch.setattr(seat_module.Seat, "welcome", spy)
    game = get_game("powder-keg")
    bots = [bot_spec(RANDOM, f"random{i}") for i in range(2)]
    with Referee(RefereeConfig(limits=FAST, sandbox_mode=MODE)) as referee, referee.session() as session:
        for variants in ((), tuple(game.variants)):
            reports = session.play_matches(game, GameConfig(players=2, points=1, variants=variants), bots,
                                           [MatchPlan(f"v{len(variants)}", f"v{len(variants)}m0")])
            assert all(g.faults == [] for r in reports for g in r.games)
    assert sent == [(0, []), (1, []), (0, list(game.variants)), (1, list(game.variants))]


def test_time_the_referee_spends_on_one_bot_is_never_charged_to_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the referee reads one bot's frame (here made to take 2.5 s, as a huge bad frame
    did before the referee read no further than it needed), another bot's answer arrives in
    time; it is read before anyone's deadline is judged, so that bot is not charged a timeout."""
    drain = table_module.Table.drain
    stalled = []

    def slow_drain(self, seat, arrived):
        if seat.index == 1 and self.seats[0].pending and not stalled:
            stalled.append(True)
            time.sleep(2.5)  # the first bot answers after 0.1 s; its wall-clock limit is 2 s
        return drain(self, seat, arrived)

    monkeypatch.setattr(table_module.Table, "drain", slow_drain)
    reports, _ = play_lineup(concurrent_zoo("slow:100", "none"), matches=2, players=2)
    assert stalled
    assert all(g.faults == [] for r in reports for g in r.games), faults_by_game(reports)


def test_frames_read_together_share_the_cpu_time_they_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot owing two requests uses 120 ms of CPU on each (its limit: 200 ms) and answers each
    in its own frame, while the referee is late to read (a loaded machine; here it waits until
    the bot has used the CPU of both).  The referee cannot tell how the bot's CPU time since the
    requests divides between the two frames, so they share it: neither is a timeout.  Before,
    the first frame was charged both answers' 240 ms and forfeited its game."""
    drain = table_module.Table.drain
    stalled = []

    def late_drain(self, seat, arrived):
        if seat.index == 0 and len(seat.pending) == 2 and not stalled:
            stalled.append(True)
            wait_until(lambda: seat.cpu_now() - seat.cpu_start >= 240_000_000, "the bot to answer both requests")
            time.sleep(0.2)  # its second frame is sent as its CPU time reaches 240 ms
        return drain(self, seat, arrived)

    monkeypatch.setattr(table_module.Table, "drain", late_drain)
    reports, _ = play_lineup(concurrent_zoo("spin:120", "none"), matches=2, players=2,
                             limits=Limits(decision_ms=200, game_ms=60_000, startup_ms=8_000, wall_factor=50))
    assert stalled, "the two games never asked the bot at the same time"
    assert all(g.faults == [] for r in reports for g in r.games), faults_by_game(reports)
    times = [d["ms"] for r in reports for g in r.games for d in g.record["decisions"] if d["seat"] == 0 and "ms" in d]
    assert max(times) < 200
