"""Results people act on: ``standings``, ``h2h`` and ``crosstable``, thin over arena.results.

Each reads the store, asks arena.results for its dataclasses and prints them: ``--format
table|csv|json|markdown`` (and ``--json``) as every listing takes them, json the full records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from arena.cli.listings import pool_notes
from arena.cli.options import (
    DEFAULT_DB,
    GAMES,
    Format,
    Json,
    ReadDb,
    TournamentFilter,
    check_filters,
    game_filter,
    open_db,
    output_format,
)
from arena.cli.output import echo_json, echo_text, render

if TYPE_CHECKING:
    from arena.ratings.confidence import Crosstable, PairStats, SeatStats
    from arena.results import HeadToHead, Standings
    from arena.storage import Store

GameFilter = Annotated[Optional[str], typer.Option("--game", "-g", help=f"Only games of this game ({GAMES}).")]
STATUS = {"separated": "separated", "tied": "tied", "open": "open"}


def standings(
    tournament: Annotated[str, typer.Argument(help="The tournament (see `arena tournaments`).")],
    db: ReadDb = DEFAULT_DB,
    fmt: Format = None,
    json_out: Json = False,
) -> None:
    """A tournament's standings by its own scoring: points (for a Swiss, the ones it paired on),
    tiebreaks (Swiss: Buchholz, median Buchholz; round-robin: mean place), byes, and each round's tables.

    Example: arena standings swiss-reactor-6
    """
    from arena import results

    fmt = output_format(fmt, json_out)
    with open_db(db) as store:
        st = results.standings(store, tournament)
    if fmt == "json":
        echo_json(st.to_json())
    else:
        echo_text(format_standings(st, fmt))


STANDING_COLUMNS = ("rank", "bot", "points", "buchholz", "median_buchholz", "rounds", "byes", "games", "wins",
                    "mean_place")


def format_standings(st: Standings, fmt: str) -> str:
    """The standings table; as text also a heading and each round's tables (csv and markdown:
    the table alone, so a program reads one listing)."""
    swiss = st.format == "swiss"
    columns = STANDING_COLUMNS if swiss else tuple(c for c in STANDING_COLUMNS if "buchholz" not in c and c != "byes")

    def num(x: float | None) -> str:
        return "-" if x is None else repr(x) if fmt == "csv" else f"{x:.2f}"

    rows = []
    for r in st.rows:
        cells = {"rank": str(r.rank), "bot": r.bot, "points": num(r.points), "buchholz": num(r.buchholz),
                 "median_buchholz": num(r.median_buchholz), "rounds": str(r.rounds), "byes": str(r.byes),
                 "games": str(r.games), "wins": str(r.wins), "mean_place": num(r.mean_place)}
        rows.append([cells[c] for c in columns])
    table = render(columns, rows, fmt, right=frozenset(columns) - {"bot"})
    if fmt != "table":
        return table
    played = len(st.rounds)
    head = (f"tournament {st.tournament} ({st.format}, {st.status}): "
            + (f"{played} of {st.rounds_planned} rounds; " if swiss else "")
            + f"ranked by {', '.join(st.tiebreaks)}")
    tables = []
    for rnd in st.rounds:
        for t in rnd.tables:
            seats = ", ".join(f"{b} {t.points[b]:.2f}" for b in t.bots)
            tables.append([str(rnd.number), str(t.table), seats, str(t.games)])
        if rnd.byes:
            tables.append([str(rnd.number), "bye", ", ".join(rnd.byes), "-"])
    rounds = render(("round", "table", "bots and their points", "games"), tables, "table",
                    right=frozenset({"round", "games"})) if swiss else ""
    versus = ""
    if st.versus:  # a gauntlet: each candidate against the pool and the other candidates
        versus = ("\ncandidates against the pool (mean: b's place - a's, positive when the candidate a "
                  "finished ahead; 95% interval):\n" + pair_table(list(st.versus), "table"))
    return head + "\n" + table + ("\n" + rounds if rounds else "") + versus


def _scope(store: Store, tournament: str | None, game: str | None, bots: tuple[str, ...] = ()) -> None:
    """The filters and bots named must be stored (an error naming what there is)."""
    check_filters(store, tournament=tournament, game=game)
    for bot in bots:
        check_filters(store, bot=bot)  # a name, or a version's label (NAME@N)


def h2h(
    a: Annotated[str, typer.Argument(help="One bot.")],
    b: Annotated[str, typer.Argument(help="The other bot.")],
    tournament: TournamentFilter = None,
    game: GameFilter = None,
    db: ReadDb = DEFAULT_DB,
    fmt: Format = None,
    json_out: Json = False,
) -> None:
    """Head-to-head of two bots at the tables they shared: games, how often each finished ahead,
    the mean place difference with a 95% interval, whether one is separated, and each one's seats.

    Example: arena h2h reactor-strong reactor-heuristic --tournament quickstart-reactor
    """
    from arena import results
    from arena.errors import UsageError

    fmt = output_format(fmt, json_out)
    if a == b:
        raise UsageError(f"a head-to-head needs two different bots, not {a!r} twice")
    game = game_filter(game)
    with open_db(db) as store:
        _scope(store, tournament, game, (a, b))
        pool = results.load_pool(store, tournament=tournament, game=game)
    result = results.h2h(pool, a, b)
    if fmt == "json":
        echo_json(result.to_json())
    elif fmt == "table":
        echo_text("\n".join(h2h_lines(result)) + "\n\n" + seat_table(result.seats, "table"))
    else:
        echo_text(pair_table([result.pair], fmt))


def h2h_lines(result: HeadToHead) -> list[str]:
    """The head-to-head in a few sentences."""
    p = result.pair
    if not p.games:
        return [f"{p.a} and {p.b} never sat at the same table"]
    assert p.mean is not None and p.low is not None and p.high is not None
    verdict = (f"separated: {p.ahead} is ahead" if p.status == "separated"
               else f"tied: within {p.delta:g} places either way" if p.status == "tied"
               else "open: not separated yet")
    tables = f"{p.matches} table{'s' if p.matches != 1 else ''}"
    return [f"{p.a} vs {p.b}: {p.games} game{'s' if p.games != 1 else ''} at {tables}; {p.a} ahead {p.a_ahead}, "
            f"{p.b} ahead {p.b_ahead}, level {p.level}",
            f"mean place difference ({p.b}'s place - {p.a}'s): {p.mean + 0.0:+.2f}, 95% interval "
            f"{p.low:+.2f} to {p.high:+.2f}",
            f"confidence that {p.a} is better: {p.p_a_better:.3f}; {verdict}"]


PAIR_COLUMNS = ("a", "b", "games", "tables", "a_ahead", "b_ahead", "level", "mean", "low", "high", "p_a_better",
                "status")


def pair_table(pairs: list[PairStats], fmt: str) -> str:
    """One row per pair (``mean``: b's place minus a's, positive when a finished ahead)."""
    def num(x: float | None) -> str:
        return "-" if x is None else repr(x + 0.0) if fmt == "csv" else f"{x + 0.0:.3f}"  # + 0.0: no -0.0

    rows = [[p.a, p.b, str(p.games), str(p.matches), str(p.a_ahead), str(p.b_ahead), str(p.level), num(p.mean),
             num(p.low), num(p.high), num(p.p_a_better), p.status] for p in pairs]
    return render(PAIR_COLUMNS, rows, fmt, records=[p.to_json() for p in pairs],
                  right=frozenset(PAIR_COLUMNS) - {"a", "b", "status"})


SEAT_COLUMNS = ("bot", "players", "seat", "games", "wins", "mean_place", "win_rate")


def seat_table(seats: tuple[SeatStats, ...], fmt: str) -> str:
    """Each bot's results by table size and seat (seat 0 moves first)."""
    rows = [[s.bot, str(s.players), str(s.seat), str(s.games), str(s.wins), f"{s.mean_place:.2f}",
             f"{s.win_rate:.2f}"] for s in seats]
    return render(SEAT_COLUMNS, rows, fmt, right=frozenset(SEAT_COLUMNS) - {"bot"})


def crosstable(
    tournament: TournamentFilter = None,
    game: GameFilter = None,
    db: ReadDb = DEFAULT_DB,
    fmt: Format = None,
    json_out: Json = False,
) -> None:
    """Every pair's head-to-head: as a table, each row bot's mean place advantage over each column
    bot ('*' separated, '=' tied), then every bot's results by seat; csv has one row per pair.

    Example: arena crosstable --tournament quickstart-reactor
    """
    from arena import results

    fmt = output_format(fmt, json_out)
    game = game_filter(game)
    with open_db(db) as store:
        _scope(store, tournament, game)
        pool = results.load_pool(store, tournament=tournament, game=game)
    pool_notes(pool, db)
    order = [r.bot for r in results.board(pool).rows] if pool.outcomes else []
    table = results.cross(pool, order)
    if fmt == "json":
        echo_json(table.to_json())
    elif fmt == "csv":
        echo_text(pair_table(list(table.pairs), fmt))
    else:
        echo_text(format_matrix(table, fmt) + ("\n" + seat_table(table.seats, fmt) if fmt == "table" else ""))


def format_matrix(table: Crosstable, fmt: str) -> str:
    """The crosstable as a matrix: the cell of row A, column B is A's mean place advantage over B
    where they met ('*': separated, A ahead; '=': tied; '-': never met).  Columns are numbered
    as the rows, which are in leaderboard order."""
    if not table.bots:
        return "no rated games"
    columns = ("#", "bot", *(str(i) for i in range(1, len(table.bots) + 1)))
    rows = []
    for i, a in enumerate(table.bots, start=1):
        cells = [str(i), a]
        for b in table.bots:
            if a == b:
                cells.append("")
                continue
            p = table.pair(a, b)
            if not p.games or p.mean is None:
                cells.append("-")
            else:
                mark = "*" if p.status == "separated" and p.ahead == a else "=" if p.status == "tied" else ""
                cells.append(f"{p.mean + 0.0:+.2f}{mark}")  # + 0.0: no "-0.00"
        rows.append(cells)
    text = render(columns, rows, fmt, right=frozenset(columns) - {"bot"})
    return text + ("\nmean place advantage of the row bot over the column bot where they met; "
                   "* separated (row bot ahead), = tied (docs/confidence.md)\n" if fmt == "table" else "")
