"""The results layer (arena.results) on stored tournaments: hand-made ones whose standings,
tiebreaks and pair counts are known in advance, and a real Swiss whose points must be the ones
the runner paired on."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena import results
from arena.cli import app
from arena.core.faults import FaultRecord
from arena.ratings.confidence import head_to_head
from arena.storage import GameRow, SeatResult, Store, open_store
from arena.tournament.file import load_tournament
from arena.tournament.runner import Tournament

from common import RANDOM

runner = CliRunner()


def spec_file(tmp_path: Path, name: str, bots: list[str], *, fmt: str = "swiss", seats: int = 2,
              extra: str = "") -> Path:
    """A tournament file of random bots without a sandbox."""
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\ngame = "reactor"\nformat = "{fmt}"\nseats = {seats}\nseed = 1\n{extra}\n'
                    '[sandbox]\nmode = "none"\n'
                    + "".join(f'[[bots]]\nname = "{b}"\npath = "{RANDOM}"\n' for b in bots))
    return path


def hand_made(store: Store, spec: Path, games: list[tuple[int, int, int, tuple[str, ...], tuple[int, ...]]],
              faults: dict[int, list[FaultRecord]] | None = None) -> str:
    """Store a tournament of ``spec`` with the given games, without playing: each is (round,
    table, seat rotation, bots by seat, places by seat), game 0 of its match."""
    t = load_tournament(spec)
    versions = {b.name: store.add_bot_version(b.name, "reactor", "bot.py", f"# {b.name}".encode(), ["python3"])
                for b in t.bots}
    store.start_tournament(t.name, t.name, "reactor",
                           {**t.to_json(), "bot_versions": {n: v.id for n, v in versions.items()}, "schedule": 2},
                           t.seed)
    for i, (rnd, table, rotation, bots, places) in enumerate(games):
        match = f"{t.name}/r{rnd}-t{table}-s{rotation}"
        firsts = [s for s, p in enumerate(places) if p == 1]
        store.add_game(GameRow(id=f"{match}-g0", game="reactor", seats=[versions[b].id for b in bots],
                               winner=firsts[0] if len(firsts) == 1 else None, record={}, tournament=t.name,
                               round=rnd, table_no=table, match_id=match),
                       [SeatResult(s, p) for s, p in enumerate(places)], (faults or {}).get(i, ()))
    store.finish_tournament(t.name)
    return t.name


def test_swiss_standings_points_and_buchholz_known_answers(tmp_path: Path, memory_store: Store) -> None:
    """Round 1: a beats b, c beats d; round 2: a beats c, d beats b.  Points a 1+1, c 1, d 1, b 0;
    Buchholz (tablemates' final points): c 1+2 = 3 ahead of d 1+0 = 1 on equal points."""
    spec = spec_file(tmp_path, "hand", ["a", "b", "c", "d"], extra="rounds = 2\nrotations = false")
    hand_made(memory_store, spec, [
        (1, 1, 0, ("a", "b"), (1, 2)), (1, 2, 0, ("c", "d"), (1, 2)),
        (2, 1, 0, ("a", "c"), (1, 2)), (2, 2, 0, ("d", "b"), (1, 2)),
    ])
    st = results.standings(memory_store, "hand")
    assert st.format == "swiss" and st.status == "finished" and st.rounds_planned == 2
    assert [(r.bot, r.points, r.buchholz) for r in st.rows] == [("a", 2, 1), ("c", 1, 3), ("d", 1, 1), ("b", 0, 3)]
    assert [r.rank for r in st.rows] == [1, 2, 3, 4]
    assert all(r.median_buchholz == r.buchholz for r in st.rows)  # two rounds: nothing to drop
    assert st.rows[0].wins == 2 and st.rows[0].mean_place == 1.0 and st.rows[-1].mean_place == 2.0
    assert [[t.bots for t in r.tables] for r in st.rounds] == [[("a", "b"), ("c", "d")], [("a", "c"), ("d", "b")]]
    assert st.rounds[1].tables[1].points == {"d": 1.0, "b": 0.0} and st.rounds[0].byes == ()
    assert st.tiebreaks == ("points", "buchholz", "median_buchholz", "wins", "bot")
    assert st.to_json()["rounds"][0]["tables"][0]["bots"] == ["a", "b"]  # plain JSON: lists, not tuples


def test_a_bye_counts_the_bots_own_points_and_median_drops_the_extremes(tmp_path: Path,
                                                                        memory_store: Store) -> None:
    """Three bots at tables of 2, three rounds: each sits out once.  x beats y, x beats z, y
    beats z: points x 2, y 1, z 0.  x: mates y (1), z (0), bye (its own 2): Buchholz 3, median 1."""
    spec = spec_file(tmp_path, "bye", ["x", "y", "z"], extra="rounds = 3\nrotations = false")
    hand_made(memory_store, spec, [
        (1, 1, 0, ("x", "y"), (1, 2)), (2, 1, 0, ("z", "x"), (2, 1)), (3, 1, 0, ("y", "z"), (1, 2)),
    ])
    st = results.standings(memory_store, "bye")
    assert [r.byes for r in st.rounds] == [("z",), ("y",), ("x",)]
    line = {r.bot: r for r in st.rows}
    assert (line["x"].buchholz, line["x"].median_buchholz, line["x"].byes, line["x"].rounds) == (3, 1, 1, 2)
    assert (line["y"].buchholz, line["y"].median_buchholz) == (2 + 0 + 1, 1)  # x 2, z 0, its bye 1
    assert [r.bot for r in st.rows] == ["x", "y", "z"]


def test_round_robin_standings_are_the_tables_mean_points(tmp_path: Path, memory_store: Store) -> None:
    spec = spec_file(tmp_path, "rr", ["a", "b", "c"], fmt="round-robin", seats=3)
    hand_made(memory_store, spec, [
        (1, 1, 0, ("a", "b", "c"), (1, 2, 3)), (1, 1, 1, ("b", "c", "a"), (2, 1, 3)),
        (1, 1, 2, ("c", "a", "b"), (3, 1, 2)),
    ])
    st = results.standings(memory_store, "rr")
    # a table's three rotations share its point: a (1 + 0 + 1) / 3, b (1/2 * 3) / 3, c (0 + 1 + 0) / 3
    pts = {r.bot: r.points_exact for r in st.rows}
    assert pts == {"a": "2/3", "b": "1/2", "c": "1/3"}
    assert [r.bot for r in st.rows] == ["a", "b", "c"] and st.rows[0].buchholz is None
    assert st.tiebreaks == ("points", "mean_place", "wins", "bot")


def test_the_pool_groups_a_tables_rotations_and_leaves_out_faulty_games(tmp_path: Path,
                                                                         memory_store: Store) -> None:
    spec = spec_file(tmp_path, "pool", ["a", "b"], fmt="round-robin", extra="games = 2")
    hand_made(memory_store, spec, [
        (1, 1, 0, ("a", "b"), (1, 2)), (1, 1, 1, ("b", "a"), (2, 1)),
        (2, 1, 0, ("a", "b"), (1, 2)), (2, 1, 1, ("b", "a"), (1, 2)),
    ], faults={3: [FaultRecord(seat=1, kind="timeout")]})
    pool = results.load_pool(memory_store, tournament="pool")
    assert len(pool.outcomes) == 4 and pool.excluded == 0 and pool.faults == {"a": {"timeout": 1}}
    assert len({pool.match_of(o) for o in pool.outcomes}) == 2  # a table's two rotations are one unit
    pair = results.h2h(pool, "a", "b").pair
    by_table = {o.game_id: o.game_id.split("-s")[0] for o in pool.outcomes}
    assert pair == head_to_head(pool.outcomes, "a", "b", match_of=lambda o: by_table[o.game_id])
    assert (pair.games, pair.matches, pair.a_ahead, pair.b_ahead) == (4, 2, 3, 1)
    clean = results.load_pool(memory_store, tournament="pool", exclude_faults=True)
    assert len(clean.outcomes) == 3 and clean.excluded == 1 and clean.faults == pool.faults
    assert results.h2h(clean, "b", "a").pair.b_ahead == 3


def test_rotations_dealt_apart_are_units_of_their_own_as_the_stop_rule_counts_them(tmp_path: Path,
                                                                                   memory_store: Store) -> None:
    """With ``duplicate = false`` a table's rotations have deals of their own: the board's unit of
    evidence is then the match, as the stop rule's is (a board judged the same games by tables,
    so a pair the stop rule called settled could show as open)."""
    spec = spec_file(tmp_path, "apart", ["a", "b"], fmt="round-robin", extra="games = 2\nduplicate = false")
    hand_made(memory_store, spec, [
        (1, 1, 0, ("a", "b"), (1, 2)), (1, 1, 1, ("b", "a"), (2, 1)),
        (2, 1, 0, ("a", "b"), (1, 2)), (2, 1, 1, ("b", "a"), (1, 2)),
    ])
    pool = results.load_pool(memory_store, tournament="apart")
    assert len({pool.match_of(o) for o in pool.outcomes}) == 4
    assert results.h2h(pool, "a", "b").pair.matches == 4


def test_the_board_marks_pairs_by_the_results_not_by_trueskill(tmp_path: Path, memory_store: Store) -> None:
    """a is ahead of b at every one of 100 tables: separated, p near 1; b and c always tie for
    second: tied (the interval lies inside the indifference zone), so not separated."""
    spec = spec_file(tmp_path, "board", ["a", "b", "c"], fmt="round-robin", seats=3, extra="games = 100")
    hand_made(memory_store, spec, [(n, 1, 0, ("a", "b", "c"), (1, 2, 2)) for n in range(1, 101)])
    b = results.board(results.load_pool(memory_store, tournament="board"))
    assert [r.bot for r in b.rows] == ["a", "b", "c"] or [r.bot for r in b.rows] == ["a", "c", "b"]
    top, mid, last = b.rows
    assert top.next_status == "separated" and top.p_better_than_next > 0.999 and top.separated_from_next
    assert mid.next_status == "tied" and not mid.separated_from_next and mid.p_better_than_next == 0.5
    assert last.next_status is None and last.p_better_than_next is None
    assert (top.rank_low, top.rank_high) == (1, 1) and top.mean_place_low == 1.0 == top.mean_place
    assert 1.0 <= last.mean_place_low <= last.mean_place <= last.mean_place_high <= 3.0
    assert b.to_json()["rows"][0]["next_status"] == "separated" and b.games == 100


def test_history_ends_at_the_board_and_follows_each_bot(tmp_path: Path, memory_store: Store) -> None:
    spec = spec_file(tmp_path, "hist", ["a", "b", "c"], fmt="round-robin", seats=2, extra="games = 3")
    hand_made(memory_store, spec, [(n, t, 0, pair, (1, 2)) for n in (1, 2, 3)
                                   for t, pair in enumerate([("a", "b"), ("a", "c"), ("b", "c")], start=1)])
    pool = results.load_pool(memory_store, tournament="hist")
    h = results.history(pool)
    board = {r.bot: r for r in results.board(pool).rows}
    assert h.bots == ("a", "b", "c") and h.games == 9
    assert [p.game for p in h.of("a")] == [1, 2, 4, 5, 7, 8]  # only the games it played
    for bot in h.bots:
        assert h.of(bot)[-1].mu == board[bot].mu and abs(h.of(bot)[-1].score - board[bot].score) < 1e-12
    assert results.history(pool, ["c"]).bots == ("c",)


def test_a_real_swiss_stands_on_the_points_it_paired_on(tmp_path: Path) -> None:
    """Five random bots at tables of 2, three rounds: the standings' points are the runner's own,
    every bot sits out once at most, and the tables are the schedule's."""
    spec = spec_file(tmp_path, "sw", [f"p{i}" for i in range(5)], extra="rounds = 3")
    db = str(tmp_path / "sw.db")
    assert runner.invoke(app, ["run", str(spec), "--db", db, "--quiet"]).exit_code == 0
    with open_store(db) as store:
        st = results.standings(store, "sw")
        t = Tournament(load_tournament(spec), store)
        pairings = [p for r in t.format.rounds(t.results) for p in r.pairings]
        paired_on = t.standings(pairings)
    assert {r.bot: r.points_exact for r in st.rows} == {b: str(p) for b, p in paired_on.items()}
    assert [len(r.byes) for r in st.rounds] == [1, 1, 1] and max(r.byes for r in st.rows) == 1
    assert sorted((p.round, p.table, p.seats) for p in pairings if p.rotation == 0) == sorted(
        (r.number, tb.table, tb.bots) for r in st.rounds for tb in r.tables)
    assert sum(r.games for r in st.rows) == 2 * 2 * 2 * 3  # 2 tables x 2 rotations x 2 seats x 3 rounds
    assert [r.rank for r in st.rows] == [1, 2, 3, 4, 5]


def test_standings_of_no_such_tournament(memory_store: Store) -> None:
    from arena.errors import StorageError

    with pytest.raises(StorageError, match="no tournament|tournament"):
        results.standings(memory_store, "nope")


def test_the_views_show_what_the_results_layer_computes(tmp_path: Path) -> None:
    """The browsing views (schema step 5) on a real tournament, read as any SQLite client reads
    them, agree with the store and the results layer; arena_record() unpacks a record to JSON."""
    import json
    import runpy
    import sqlite3

    from common import ROOT

    spec = spec_file(tmp_path, "views", ["p0", "p1", "p2"], fmt="round-robin")
    db = str(tmp_path / "views.db")
    assert runner.invoke(app, ["run", str(spec), "--db", db, "--quiet"]).exit_code == 0
    with open_store(db) as store:
        pool = results.load_pool(store, tournament="views")
        pair = results.h2h(pool, "p0", "p1").pair
        board = {r.bot: r for r in results.board(pool).rows}
        record = store.game_record("views/r1-t1-s0-g0")
        seats = store.results(tournament="views")
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    rows = con.execute("SELECT * FROM seat_results ORDER BY game_id, seat").fetchall()
    assert len(rows) == len(seats) == 12 and {r["bot"] for r in rows} == {"p0", "p1", "p2"}
    assert sorted((r["game_id"], r["seat"], r["place"]) for r in rows) == sorted(
        (s.game_id, s.seat, s.place) for s in seats)
    h = con.execute("SELECT * FROM head_to_head WHERE bot_a = 'p0' AND bot_b = 'p1'").fetchone()
    assert (h["games"], h["a_ahead"], h["b_ahead"], h["level"]) == (pair.games, pair.a_ahead, pair.b_ahead, pair.level)
    assert h["mean_place_difference"] == round(pair.mean, 3)
    for r in con.execute("SELECT * FROM bot_standings"):
        assert (r["games"], r["wins"], r["faults"]) == (board[r["bot"]].games, board[r["bot"]].wins, 0)
        assert r["mean_place"] == round(board[r["bot"]].mean_place, 3)
    g = con.execute("SELECT seats FROM game_results WHERE id = 'views/r1-t1-s0-g0'").fetchone()
    assert [s["place"] for s in json.loads(g["seats"])] == record["result"]["places"]
    assert con.execute("SELECT count(*) FROM fault_list").fetchone()[0] == 0
    functions = runpy.run_path(str(ROOT / "tools" / "sql" / "arena_sql.py"))
    con.create_function("arena_record", 1, functions["arena_record"])
    text = con.execute("SELECT arena_record(record) FROM games WHERE id = 'views/r1-t1-s0-g0'").fetchone()[0]
    assert json.loads(text) == record
    assert con.execute("SELECT json_extract(arena_record(record), '$.result.places') FROM games"
                       " WHERE id = 'views/r1-t1-s0-g0'").fetchone()[0] == json.dumps(record["result"]["places"],
                                                                                       separators=(",", ":"))


def test_the_history_plot_puts_each_bot_where_its_score_is(tmp_path: Path, memory_store: Store) -> None:
    """a beats b in all 20 games: by the end a's line (A) is at the top of the plot and b's (B)
    below it, and the table's last row is the final ratings."""
    from arena.cli.history import checkpoints, format_history, plot

    spec = spec_file(tmp_path, "plot", ["a", "b"], fmt="round-robin", extra="games = 10")
    hand_made(memory_store, spec, [(n, 1, r, ("a", "b") if r == 0 else ("b", "a"), (1, 2) if r == 0 else (2, 1))
                                   for n in range(1, 11) for r in (0, 1)])
    h = results.history(results.load_pool(memory_store, tournament="plot"))
    lines = plot(h, width=20, height=8)
    grid = [line.split("|", 1)[1] if "|" in line else "" for line in lines[:8]]
    last = [row[19] if len(row) > 19 else " " for row in grid]
    assert last.index("A") == 0 and last.index("B") > 0  # A on the top row, B lower
    assert lines[-1] == "score (mu - 3 sigma): A a, B b"
    assert checkpoints(20, 12)[-1] == 20 and checkpoints(5) == [1, 2, 3, 4, 5]
    table = format_history(h, "table").splitlines()
    final = results.board(results.load_pool(memory_store, tournament="plot")).rows
    assert table[checkpoints(20).index(20) + 1].split() == ["20", *(f"{r.score:.2f}" for r in final)]
