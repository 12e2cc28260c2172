"""The referee with real bot processes over real ZeroMQ sockets, in the real sandbox.

A zoo of misbehaving bots (tests/bots/zoo_*.py): each fault becomes the right recorded outcome,
the other bots finish the game, and no bot process survives the match.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
import uuid
import socket
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from arena.games import GameConfig, get_game
from arena.games.record import replay
from arena.referee import BotSpec, Referee, RefereeConfig, bot_spec
from arena.sandbox import Resources
from arena.sandbox import sandbox_available
from common import MODE, PY, RANDOM, ROOT, ZOO, bot_processes, tagged, zoo
from protocol.messages import Limits

FAST = Limits(decision_ms=1500, game_ms=20_000, startup_ms=8_000, wall_factor=2)
# A bot that thinks too long: its CPU time runs out first, however busy the machine (wall: 9 s).
THINKING = Limits(decision_ms=300, game_ms=20_000, startup_ms=8_000, wall_factor=30)


def play(first: BotSpec, *, players: int = 3, points: int = 1, limits: Limits = FAST, mode: str = MODE, **config):
    game = get_game("reactor")
    tag = f"tag-{uuid.uuid4().hex}"
    bots = [tagged(first, tag)] + [tagged(bot_spec(RANDOM, f"random{i}"), tag) for i in range(1, players)]
    with Referee(RefereeConfig(limits=limits, sandbox_mode=mode, **config)) as referee:
        report = referee.play_match(game, GameConfig(players=players, points=points), bots, seed="zoo")
    assert bot_processes(tag) == [], "a bot process survived the match"
    for g in report.games:
        replay(game, g.record)  # every game, faults included, replays exactly
    return report


def test_random_bots_play_a_match_warm() -> None:
    """Bots start once per match and stay warm; results and records are complete."""
    report = play(bot_spec(RANDOM, "random0"), points=2)
    assert len(report.games) >= 2
    assert report.starts == [1, 1, 1]
    assert max(report.scores) == 2
    for g in report.games:
        assert g.faults == []
        assert sorted(g.record["result"]["places"]) == [1, 2, 3]
        assert any(d.get("auto") for d in g.record["decisions"]) or True
        assert all("ms" in d or d.get("auto") for d in g.record["decisions"])


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        (zoo("hang"), "timeout"),
        (zoo("late"), "timeout"),
        (zoo("crash_mid"), "crash"),
        (zoo("illegal"), "illegal"),
        (zoo("raw", "garbage"), "malformed"),
        (zoo("raw", "badjson"), "malformed"),
        (zoo("raw", "schema"), "schema"),
        (zoo("raw", "deep"), "illegal"),
        (zoo("raw", "deeptype"), "schema"),
        (zoo("raw", "deephello"), "startup"),
        (zoo("raw", "longtype"), "schema"),
        (zoo("raw", "longhello"), "startup"),
        (zoo("raw", "junkfirst"), "startup"),
        (zoo("raw", "huge"), "too_large"),
        (zoo("raw", "twice"), "stale"),
        (zoo("raw", "close"), "disconnected"),
        (zoo("raw", "version"), "protocol_version"),
        (zoo("raw", "badhello"), "startup"),
        (zoo("crash_start"), "startup"),
    ],
    ids=lambda v: v.name if isinstance(v, BotSpec) else v,
)
def test_fault_is_an_outcome(spec: BotSpec, kind: str) -> None:
    """Each misbehaviour is recorded with its kind; the faulting bot ranks last; the others finish."""
    report = play(spec, limits=THINKING if spec.name == "late" else FAST)
    game = report.games[0]
    kinds = [f.kind for f in game.faults]
    assert kinds == [kind], [f.message for f in game.faults]
    assert game.faults[0].seat == 0 and game.faults[0].message
    # Whatever the bot sent, what is stored, printed and sent back of it is small and plain.
    assert all(len(f.message.encode()) <= 600 and f.message.isprintable() for f in game.faults), game.faults
    if spec.name == "hang":  # says what happened in plain words
        assert game.faults[0].message == "the bot said nothing within the 3000 ms of wall-clock time a decision may take"
    if spec.name == "late":
        assert game.faults[0].message.startswith("the bot used "), game.faults[0].message
        assert game.faults[0].message.endswith(" ms of CPU time on a decision without answering in time (it may "
                                               "use 300 ms)"), game.faults[0].message
    result = game.record["result"]
    assert result["forfeits"] == [0]
    assert result["places"][0] == 3
    assert sorted(result["places"][1:]) == [1, 2]
    assert game.record["faults"][0]["kind"] == kind


def test_a_bot_has_one_connection_to_its_socket() -> None:
    """Every connection would cost the referee a descriptor (libzmq aborted the whole referee
    when thousands ran it out of them) and, through libzmq, memory for a message of countless
    parts.  The first connection is accepted and the socket then stops listening: a second one
    is refused by the kernel and the bot plays on; a bot whose first connection is not its
    DEALER's fails to start."""
    report = play(zoo("raw", "second"))
    assert all(g.faults == [] for g in report.games)
    assert "second connection refused" in "".join(g.logs.get(0, "") for g in report.games)
    report = play(zoo("raw", "junkfirst"))
    [fault] = report.games[0].faults
    assert (fault.kind, fault.seat) == ("startup", 0)
    assert fault.message.startswith("malformed: its connection does not speak ZeroMQ's protocol: not a ZeroMQ "
                                    "connection (it began with bytes 474554202f2048545450)"), fault.message


@pytest.mark.perf  # a 500 ms game budget: on a loaded machine the other bots run out of it too
def test_a_bot_whose_game_time_runs_out_as_it_answers_is_never_asked_with_no_time() -> None:
    """Time limits: a bot that answers just as its game time runs out has its answer counted
    (deadlines are kept to the millisecond) and then forfeits, without being sent a request with
    0 or -1 ms left (which the schema forbids, and which no bot could answer): zoo_spend dies
    and says so on stderr if it is.  (Its answer may also come a hair too late, or leave it 1 ms
    for its next decision: then it times out as usual.)"""
    report = play(zoo("spend"), points=3, limits=Limits(decision_ms=1000, game_ms=500, startup_ms=8_000))
    faults = [f for g in report.games for f in g.faults]
    assert faults and all(f.seat == 0 for f in faults)
    assert {f.kind for f in faults} == {"timeout"}, [f.message for f in faults]
    assert all(g.record["result"]["forfeits"] == [0] for g in report.games)
    assert not any("asked with" in text for g in report.games for text in g.logs.values())


def test_a_bot_that_never_started_cannot_outlast_one_that_plays(caplog: pytest.LogCaptureFixture) -> None:
    """Forfeit (absent seats): a bot that failed to start leaves before the first decision, so an
    opponent that would fault at its first turn still beats it (a walkover), and a table where no
    bot started is a tie with no winner."""
    game = get_game("reactor")
    tag = f"tag-{uuid.uuid4().hex}"
    with caplog.at_level(logging.WARNING, logger="arena.referee"), \
            Referee(RefereeConfig(limits=FAST, sandbox_mode=MODE)) as referee:
        report = referee.play_match(game, GameConfig(players=2), [tagged(zoo("illegal"), tag),
                                                                   tagged(zoo("crash_start"), tag)], seed="zoo")
        both = referee.play_match(game, GameConfig(players=2), [tagged(zoo("crash_start"), tag),
                                                                 tagged(zoo("crash_start"), tag)], seed="zoo")
    assert bot_processes(tag) == []
    record = report.games[0].record
    assert [(f.seat, f.kind) for f in report.games[0].faults] == [(1, "startup")]
    assert record["result"]["places"] == [1, 2] and record["result"]["winner"] == 0
    assert record["decisions"] == [{"seat": 1, "action": {"type": "forfeit", "reason": "startup", "absent": True},
                                    "fault": "startup"}]
    assert report.scores == [1, 0]
    assert f"crash_start (seat 1) faulted in {report.games[0].game_id}: startup" in caplog.text  # logged as others are
    record = both.games[0].record
    assert record["result"]["places"] == [1, 1] and record["result"]["winner"] is None
    from arena.cli.replay_view import replay_lines

    lines = list(replay_lines(record))
    decides = [i for i, line in enumerate(lines) if line.startswith(">>")]
    assert len(decides) == 2 and decides[1] == decides[0] + 1  # they leave together, then the events
    assert decides[1] < next(i for i, line in enumerate(lines) if line.startswith("   end:"))
    for r in (report, both):
        replay(game, r.games[0].record)


@pytest.mark.parametrize("mode", sorted({MODE, "none"}))
def test_a_bot_killed_by_a_signal_is_said_so_with_and_without_bubblewrap(mode: str) -> None:
    """bubblewrap passes a signal death on as status 128 + the signal; without it the status is
    minus the signal: the fault names the signal either way."""
    report = play(zoo("sigkill_start"), mode=mode)
    [fault] = report.games[0].faults
    assert fault.kind == "startup" and "crash: the bot was killed by SIGKILL" in fault.message, fault.message


def test_how_a_bot_ended_in_words() -> None:
    from arena.referee.seat import _how_it_ended

    assert _how_it_ended(3, sandboxed=True) == _how_it_ended(3, sandboxed=False) == "exited with status 3"
    assert _how_it_ended(-15, sandboxed=False) == _how_it_ended(143, sandboxed=True) == "was killed by SIGTERM"
    assert _how_it_ended(143, sandboxed=False) == "exited with status 143"  # a bot's own exit(143)
    assert _how_it_ended(-9, sandboxed=False).startswith("was killed by SIGKILL (its memory or CPU-time limit")


def test_a_wrong_protocol_version_gets_an_error_then_shutdown() -> None:
    """protocol/README.md: a hello with another protocol version gets an ``error`` of that kind,
    then ``shutdown`` (the bot can exit cleanly; what it wrote is kept with the game)."""
    report = play(zoo("raw", "version"))
    assert [f.kind for f in report.games[0].faults] == ["protocol_version"]
    assert "after the error: shutdown" in report.games[0].logs[0]


def test_a_bad_hello_is_a_startup_fault_and_the_bot_is_told_why() -> None:
    """Faults, point 3: a first message that is not a valid hello is recorded as a start-up fault
    naming what was wrong, and the bot gets an ``error`` of that kind, then ``shutdown``."""
    report = play(zoo("raw", "badhello"))
    fault = report.games[0].faults[0]
    assert (fault.kind, fault.seat) == ("startup", 0) and fault.message.startswith("schema: ")
    assert "error: schema: invalid hello message" in report.games[0].logs[0]
    assert "after the error: shutdown" in report.games[0].logs[0]


def test_a_bot_given_as_a_command_with_arguments_finds_its_endpoint() -> None:
    """The endpoint is appended to a command's own arguments and is in $ARENA_ENDPOINT, which the
    SDK reads first; the bot is named after its script, not its last argument."""
    spec = bot_spec(f"{PY} {RANDOM} --fast")
    assert spec.name == "random_bot"
    report = play(spec)
    assert report.games[0].faults == [] and report.starts[0] == 1


def test_crashing_bot_is_restarted_then_disqualified() -> None:
    """A bot that faults in game after game is restarted each time, then disqualified."""
    report = play(zoo("crash_mid"), points=3, faults_to_disqualify=2)
    kinds = [[f.kind for f in g.faults] for g in report.games]
    assert kinds[0] == ["crash"] and kinds[1] == ["crash"]
    assert report.disqualified == [0]
    assert report.starts[0] == 2 and report.starts[1:] == [1, 1]
    for g in report.games[2:]:
        assert g.record["result"]["forfeits"] == [0]
        assert g.record["result"]["places"][0] == 3


def test_a_match_ends_once_every_bot_is_disqualified() -> None:
    """With every seat disqualified nothing is left to decide, but the match went on to its game
    cap (15 games for two seats to 3 points), storing games where nobody played."""
    game = get_game("reactor")
    tag = f"tag-{uuid.uuid4().hex}"
    bots = [tagged(replace(zoo("crash_start"), name=name), tag) for name in ("a", "b")]
    config = RefereeConfig(limits=FAST, sandbox_mode=MODE, faults_to_disqualify=2)
    with Referee(config) as referee:
        report = referee.play_match(game, GameConfig(players=2, points=3), bots, seed="all-out")
    assert bot_processes(tag) == []
    assert len(report.games) == 2 and report.disqualified == [0, 1]
    assert [[f.kind for f in g.faults] for g in report.games] == [["startup", "startup"]] * 2
    assert report.winner is None


def test_stderr_is_captured_per_game_and_bounded() -> None:
    report = play(zoo("crash_mid"))
    log = report.games[0].logs[0]
    assert "deliberate crash on the third decision" in log
    assert len(log.encode()) <= 64 * 1024 + 100


def test_a_clean_game_keeps_a_shorter_tail_of_stderr() -> None:
    """A chatty bot stored 64 KB of stderr a game; a game without a fault keeps its last 8 KB (a
    faulted one keeps the longer tail, for the traceback: see the test above)."""
    report = play(zoo("chatty"))
    game = report.games[0]
    assert game.faults == []
    log = game.logs[0]
    assert log.startswith("[") and "earlier characters not kept" in log.splitlines()[0]
    assert len(log) <= 8 * 1024 + 200 and log.rstrip().endswith(".")
    assert game.record["logs"]["0"] == log


def test_a_seats_stderr_over_a_match_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that faults game after game (never disqualified) stored its full stderr tail every
    game; once a seat's stored stderr reaches the match's budget, each later game keeps only a
    short tail, which still ends with the traceback's last line."""
    import arena.referee.logs as referee_module

    monkeypatch.setattr(referee_module, "MATCH_LOG_CHARS", 300)
    monkeypatch.setattr(referee_module, "SPENT_LOG_CHARS", 120)
    report = play(zoo("crash_mid"), points=3, faults_to_disqualify=99)
    assert len(report.games) >= 3
    kept = []
    for g in report.games:
        assert [f.kind for f in g.faults] == ["crash"]
        text = g.logs[0]
        assert text.rstrip().endswith("deliberate crash on the third decision")
        assert g.record["logs"]["0"] == text
        note, tail = text.split("\n", 1)
        assert note.startswith("[") and "of the 300 characters of stderr a match keeps" in note
        kept.append(len(tail))
    assert kept[0] == 300  # the first game spends the whole budget (a traceback is longer)
    assert kept[1:] == [120] * (len(kept) - 1)  # then each game keeps the short tail


def test_unbounded_memory_is_stopped() -> None:
    """The address-space limit turns a memory hog into a crash of that bot alone."""
    report = play(zoo("memory"), resources=Resources(memory_mb=300), limits=Limits(decision_ms=8000, game_ms=30_000, startup_ms=8000))
    assert [f.kind for f in report.games[0].faults] == ["crash"]
    assert "MemoryError" in report.games[0].logs[0]


def test_leftover_child_is_killed() -> None:
    report = play(zoo("child"))
    assert report.games[0].faults == []
    assert "started a detached child" in report.games[0].logs[0]


def test_fork_bomb_is_contained() -> None:
    report = play(zoo("fork"), resources=Resources(processes=16))
    assert sorted(report.games[0].record["result"]["places"]) == [1, 2, 3]


def test_each_bot_sees_only_its_own_observation() -> None:
    report = play(zoo("spy"))
    assert "own observations only: True" in report.games[0].logs[0]


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_network_is_closed() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted: list[object] = []

    def serve() -> None:
        try:
            accepted.append(server.accept())
        except OSError:
            pass

    thread = threading.Thread(target=serve)
    thread.start()
    report = play(zoo("network", str(port)))
    thread.join()
    server.close()
    log = report.games[0].logs[0]
    assert "loopback blocked" in log and "outside blocked" in log
    assert accepted == []


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_other_files_are_invisible(tmp_path: Path) -> None:
    database = tmp_path / "arena.db"
    database.write_bytes(b"SQLite format 3\0secret")
    other_bot = str(ZOO / "zoo_hang.py")
    report = play(zoo("snoop", str(database), other_bot))
    log = report.games[0].logs[0]
    assert f"denied {database}" in log and f"denied {other_bot}" in log
    assert "READ" not in log


@pytest.mark.skipif(shutil.which("node") is None or not (ROOT / "bots/js/node_modules/zeromq").exists(),
                    reason="needs node and `npm ci` in bots/js")
def test_javascript_bot_plays_a_full_game() -> None:
    report = play(bot_spec(str(ROOT / "bots/js/random_bot.js"), "js"), points=1)
    game = report.games[0]
    assert game.faults == [], [f.message for f in game.faults]
    assert report.hello_names[0] == "js-random"
    assert any(d["seat"] == 0 and "ms" in d for d in game.record["decisions"])


def test_session_keeps_bots_warm_across_seat_rotations() -> None:
    """A session plays a table's rotations with one process per bot; seats follow game_start."""
    game = get_game("reactor")
    tag = f"tag-{uuid.uuid4().hex}"
    spy = tagged(zoo("spy"), tag)
    bots = [spy, tagged(bot_spec(RANDOM, "a"), tag), tagged(bot_spec(RANDOM, "b"), tag)]
    reports = []
    with Referee(RefereeConfig(limits=FAST, sandbox_mode=MODE)) as referee, referee.session() as session:
        for r in range(3):
            order = bots[r:] + bots[:r]
            reports.append(session.play_match(game, GameConfig(players=3), order, seed="rot", match_id=f"m{r}"))
    assert bot_processes(tag) == []
    assert [sum(m.starts) for m in reports] == [3, 0, 0]  # started once, for the whole session
    logs = "".join(g.logs.get(s, "") for m in reports for g in m.games for s in range(3))
    assert logs.count("own observations only: True") == 3 and "False" not in logs


def test_startup_failure_is_logged_with_its_game() -> None:
    report = play(zoo("crash_start"))
    assert "giving up at once" in report.games[0].logs[0]


def test_closing_the_referee_never_waits_for_a_socket_left_open(tmp_path: Path) -> None:
    """Ctrl-C can land between a seat's socket being made and its being recorded; closing the
    referee must still close it, at once."""
    referee = Referee(RefereeConfig(sandbox_mode=MODE))
    orphan = referee.links.open(tmp_path / "orphan", max_message_size=1024)
    closing = threading.Thread(target=referee.close, daemon=True)
    closing.start()
    closing.join(5)
    assert not closing.is_alive(), "Referee.close() hung on an open socket"
    assert orphan.fileno() == -1 and not (tmp_path / "orphan").exists()


def test_socket_folders_of_killed_referees_are_removed(tmp_path: Path) -> None:
    """A referee killed with SIGKILL cannot remove its folder in /tmp; the next one does, and
    leaves alone the folders of referees still running."""
    import subprocess
    import tempfile

    from arena.referee.workroot import OWNER_FILE, WORKROOT_PREFIX

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = Path(tempfile.mkdtemp(prefix=WORKROOT_PREFIX))
    (stale / OWNER_FILE).write_text(str(dead.pid))
    (stale / "s0-x").mkdir()
    alive = Path(tempfile.mkdtemp(prefix=WORKROOT_PREFIX))
    (alive / OWNER_FILE).write_text(str(os.getppid()))  # pytest's parent lives on
    planted = Path(tempfile.mkdtemp(prefix=WORKROOT_PREFIX))  # anyone may plant a FIFO in /tmp:
    os.mkfifo(planted / OWNER_FILE)  # reading it would block every referee started after
    try:
        with Referee(RefereeConfig(sandbox_mode=MODE)) as referee, referee.session() as session:
            assert (session.workroot / OWNER_FILE).read_text() == str(os.getpid())
        assert not stale.exists() and alive.exists() and planted.exists()
    finally:
        for folder in (alive, stale, planted):
            shutil.rmtree(folder, ignore_errors=True)


def test_a_pools_sweep_of_its_workers_folders_spares_a_live_process_that_took_a_pid(tmp_path: Path) -> None:
    """When a pool stops it removes the socket folders of its workers, which have ended; a pid
    of a worker that ended early may since be another live process's, whose folder stays."""
    import subprocess
    import tempfile

    from arena.referee.workroot import OWNER_FILE, WORKROOT_PREFIX, remove_workroots_of

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    time.sleep(0.05)  # the folder is made after the process started, as its own would be
    folders = {}
    try:
        for label, pid in (("dead", dead.pid), ("live", live.pid)):
            folder = Path(tempfile.mkdtemp(prefix=WORKROOT_PREFIX))
            (folder / OWNER_FILE).write_text(str(pid))
            folders[label] = folder
        remove_workroots_of({dead.pid, live.pid})
        assert not folders["dead"].exists() and folders["live"].exists()
    finally:
        live.kill()
        live.wait()
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)


def test_a_referee_sweeps_what_killed_referees_left_once_not_at_every_session(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's referee starts a session per seat rotation; the sweep (a scan of every process,
    about 20 ms) is made as its first starts.  A killed referee's folder is gone after it."""
    import subprocess
    import tempfile

    from arena import sandbox
    from arena.referee.workroot import OWNER_FILE, WORKROOT_PREFIX

    scans = []
    real = sandbox.reap_orphans
    monkeypatch.setattr(sandbox, "reap_orphans", lambda: scans.append(1) or real())
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = Path(tempfile.mkdtemp(prefix=WORKROOT_PREFIX))
    (stale / OWNER_FILE).write_text(str(dead.pid))
    try:
        with Referee(RefereeConfig(sandbox_mode=MODE)) as referee:
            for _ in range(3):
                with referee.session():
                    assert not stale.exists()
        assert len(scans) == 1
    finally:
        shutil.rmtree(stale, ignore_errors=True)


def test_a_deep_temporary_folder_does_not_make_socket_paths_too_long(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An ipc socket's path holds 107 bytes: under a deep $TMPDIR every match failed with
    'ipc socket path too long'; the referee then keeps its sockets under /tmp."""
    import tempfile

    deep = tmp_path / ("d" * 60)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    report = play(bot_spec(RANDOM, "random0"))
    assert report.games and all(g.faults == [] for g in report.games)
