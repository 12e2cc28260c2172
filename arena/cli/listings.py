"""Listings of what the database holds: ``ratings``, ``games`` and ``tournaments``.

Each takes ``--format table|csv|json|markdown`` (and ``--json``): csv and markdown have the
table's columns, json the full records (:mod:`arena.cli.output`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from arena.cli.history import format_history
from arena.cli.leaderboard import COLUMNS as RATING_COLUMNS, NUMBER_COLUMNS, format_board
from arena.cli.options import (
    DEFAULT_DB,
    GAMES,
    Format,
    Json,
    Limit,
    ReadDb,
    Round,
    TournamentFilter,
    check_filters,
    game_filter,
    open_db,
    output_format,
)
from arena.cli.output import echo_listing, echo_text, note
from arena.errors import UsageError

if TYPE_CHECKING:
    from arena.results import Pool
    from arena.storage import GameSummary, Store, Tournament

GAME_COLUMNS = ("id", "game", "places", "notes")
TOURNAMENT_COLUMNS = ("id", "game", "status", "created")


def ratings(
    bots: Annotated[Optional[list[str]], typer.Argument(
        metavar="BOT", help="With --history: only these bots (default: every rated bot).",
        show_default=False)] = None,
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Only games of this game ({GAMES}).")] = None,
    tournament: TournamentFilter = None,
    history: Annotated[bool, typer.Option("--history", help="The ratings game by game: a table and a plot of "
                                          "each bot's score.")] = False,
    exclude_faults: Annotated[bool, typer.Option("--exclude-faults", help="Leave out every game in which a bot "
                                                 "faulted or forfeited (infrastructure accidents).")] = False,
    fmt: Format = None,
    json_out: Json = False,
    db: ReadDb = DEFAULT_DB,
) -> None:
    """TrueSkill ratings recomputed from the stored games: rank, bot, score (mu - 3 sigma), mu, sigma,
    the 95% range of its rank, games, wins, mean place and its 95% interval, the confidence that
    it is better than the next bot and whether the two are separated, and faults (docs/confidence.md).

    Example: arena ratings --tournament quickstart-reactor --format markdown
    """
    from arena import results

    fmt = output_format(fmt, json_out)
    if bots and not history:
        raise UsageError(f"{bots[0]!r}: naming bots needs --history (arena ratings --history BOT)")
    game = game_filter(game)
    with open_db(db) as store:
        check_filters(store, tournament=tournament, game=game)
        for bot in bots or ():
            check_filters(store, bot=bot)  # a name, or a version's label (NAME@N)
        pool = results.load_pool(store, tournament=tournament, game=game, exclude_faults=exclude_faults)
    pool_notes(pool, db)
    if not pool.outcomes:
        echo_listing(RATING_COLUMNS, [], fmt, [], _no_ratings_hint(pool.stored), right=NUMBER_COLUMNS)
    elif history:
        echo_text(format_history(results.history(pool, bots or None), fmt))
    else:
        echo_text(format_board(results.board(pool), fmt))


def pool_notes(pool: Pool, db: str) -> None:
    """Refuse a pool of two games (bots of two games never meet: one ranking of them all would
    mislead), and say on stderr (stdout keeps the table alone) which tournaments among the games
    are not finished and how many games ``--exclude-faults`` left out."""
    if len(pool.games) > 1:
        raise UsageError(f"{db} holds games of {' and '.join(pool.games)}: rate one game at a time, "
                         f"e.g. --game {pool.games[0]}")
    if pool.unfinished:
        which = (f"tournament {pool.unfinished[0]} is" if len(pool.unfinished) == 1
                 else f"tournaments {', '.join(pool.unfinished)} are")
        note(f"note: {which} not finished (interrupted, or playing now): these ratings include only the games "
             "played so far")
    if pool.excluded:
        note(f"note: {pool.excluded} game{'s' if pool.excluded > 1 else ''} with a fault or forfeit left out "
             "(--exclude-faults)")


def _no_ratings_hint(stored: int) -> str:
    if not stored:
        return "no rated games yet; run a tournament with `arena run FILE`"
    return (f"no rated games: none of the {stored} stored games can be rated (a game "
            "counts when some bot played in it, and no bot sat at its table twice"
            "; --exclude-faults leaves out games with a fault or forfeit); `arena games` shows their faults")


def games(
    tournament: TournamentFilter = None,
    bot: Annotated[Optional[list[str]], typer.Option(
        "--bot", "-b", help="Only games this bot played (repeatable: all of them at the table).")] = None,
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Only games of this game ({GAMES}).")] = None,
    round: Round = None,
    faults: Annotated[bool, typer.Option("--faults", help="Only games with a fault.")] = False,
    per_seat: Annotated[bool, typer.Option("--per-seat", help="One row per seat of each game (bot, place, "
                                           "forfeit, faults), e.g. for a spreadsheet with --format csv.")] = False,
    limit: Limit = 50,
    db: ReadDb = DEFAULT_DB,
    fmt: Format = None,
    json_out: Json = False,
) -> None:
    """List stored games, newest first, with each bot's place; `arena replay ID` shows one.
    The filters combine: every one must hold.

    Example: arena games --bot reactor-strong --bot random --faults --limit 10
    """
    fmt = output_format(fmt, json_out)
    game = game_filter(game)
    with open_db(db) as store:
        check_filters(store, tournament=tournament, game=game)
        for name in bot or ():
            check_filters(store, bot=name)
        rows = store.games(tournament=tournament, bots=bot or (), game=game, round=round, faults=faults,
                           limit=limit)
    filtered = any((tournament, bot, game, round, faults))
    hint = "no games match" if filtered else "no games stored yet"
    if per_seat:
        seats = [seat for r in rows for seat in _seat_rows(r)]
        echo_listing(SEAT_COLUMNS, [[_cell(v) for v in s.values()] for s in seats], fmt, seats, hint,
                     right=frozenset({"round", "table", "seat", "place", "faults"}))
        return
    listed = [_game_row(r) for r in rows]
    echo_listing(GAME_COLUMNS, [cells for cells, _ in listed], fmt, [record for _, record in listed], hint)


SEAT_COLUMNS = ("game_id", "tournament", "game", "round", "table", "seat", "bot", "place", "forfeited", "faults")


def _seat_rows(r: GameSummary) -> list[dict[str, Any]]:
    """A game's seats, one record each (``faults``: this seat's faults in this game)."""
    return [{"game_id": r.id, "tournament": r.tournament, "game": r.game, "round": r.round, "table": r.table_no,
             "seat": seat, "bot": bot, "place": r.places[seat], "forfeited": r.forfeited[seat],
             "faults": len(r.collateral[seat])} for seat, bot in enumerate(r.bots)]


def _cell(value: Any) -> str:
    return "-" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _game_row(r: GameSummary) -> tuple[list[str], dict[str, Any]]:
    """A game's cells (its places in order, and notes on what a plain loss would not explain)
    and its JSON record (the summary, with the seats already disqualified from the match in
    place of the raw flags)."""
    from arena.referee.standing import disqualified_seats

    order = sorted(range(len(r.places)), key=r.places.__getitem__)
    notes = (["capped"] if r.capped else []) + ([f"{r.faults} fault(s)"] if r.faults else [])
    out = disqualified_seats(r.forfeited, r.collateral)
    if out:  # forfeited with no fault in this game: say why, or it reads as a plain loss
        notes.append(f"{', '.join(r.bots[s] for s in out)} disqualified")
    record = asdict(r)
    del record["forfeited"], record["collateral"]
    return ([r.id, r.game, ", ".join(f"{r.places[s]}. {r.bots[s]}" for s in order), "; ".join(notes) or "-"],
            {**record, "disqualified": out})


def tournaments(
    db: ReadDb = DEFAULT_DB,
    fmt: Format = None,
    json_out: Json = False,
) -> None:
    """List the tournaments in the database, newest first: finished, running (being played
    now) or interrupted (run its file again to resume it).

    Example: arena tournaments --db arena.db
    """
    fmt = output_format(fmt, json_out)
    with open_db(db) as store:
        rows = [(t, store.status(t)) for t in store.tournaments()]
        records = [_tournament_record(store, t, status) for t, status in rows]
    echo_listing(TOURNAMENT_COLUMNS, [[t.id, t.game, status, t.created] for t, status in rows], fmt, records,
                 "no tournaments yet; run one with `arena run FILE`")


def _tournament_record(store: Store, t: Tournament, status: str) -> dict[str, Any]:
    """A tournament as JSON.  Its spec keeps each bot's version as a row id of the database:
    shown as `bots show` numbers it, with its hash."""
    spec = dict(t.spec)
    versions = {name: store.bot_version(vid) for name, vid in spec.get("bot_versions", {}).items()}
    spec["bot_versions"] = {name: {"version": v.version, "sha256": v.sha256} for name, v in versions.items()}
    return {**asdict(t), "spec": spec, "status": status}
