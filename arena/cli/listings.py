"""Listings of what the database holds: ``ratings``, ``games`` and ``tournaments``.

Each takes ``--format table|csv|json|markdown`` (and ``--json``): csv and markdown have the
table's columns, json the full records (:mod:`arena.cli.output`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from arena.cli.leaderboard import COLUMNS as RATING_COLUMNS, NUMBER_COLUMNS, format_table
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
from arena.cli.output import echo_listing, echo_text, note
from arena.errors import UsageError

if TYPE_CHECKING:
    from arena.storage import GameSummary, ResultRow, Store, Tournament

GAME_COLUMNS = ("id", "game", "places", "notes")
TOURNAMENT_COLUMNS = ("id", "game", "status", "created")


def ratings(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Only games of this game ({GAMES}).")] = None,
    tournament: TournamentFilter = None,
    fmt: Format = None,
    json_out: Json = False,
    db: ReadDb = DEFAULT_DB,
) -> None:
    """TrueSkill ratings recomputed from the stored games: rank, bot, score (mu - 3 sigma), mu, sigma,
    games, wins, mean place and faults.

    Example: arena ratings --tournament quickstart-reactor --format markdown
    """
    from arena import ratings as rating

    fmt = output_format(fmt, json_out)
    game = game_filter(game)
    with open_db(db) as store:
        rows, faults = _results(store, tournament, game)
    _one_game(rows, db)
    outcomes = rating.outcomes_from_results(rows)
    if not outcomes:
        echo_listing(RATING_COLUMNS, [], fmt, [], _no_ratings_hint(rows), right=NUMBER_COLUMNS)
    else:
        echo_text(format_table(rating.leaderboard(rating.rate(outcomes, rating.make_env()), outcomes, faults), fmt))


def _results(store: Store, tournament: str | None,
             game: str | None) -> tuple[list[ResultRow], dict[str, dict[str, int]]]:
    """The stored results to rate and the faults of the same games (read together, while a run
    may write), with a note on stderr (stdout keeps the table alone) naming the tournaments among
    them that are not finished."""
    check_filters(store, tournament=tournament, game=game)
    with store.snapshot():
        rows = store.results(tournament=tournament, game=game)
        faults = store.fault_counts(tournament=tournament, game=game)
    counted = {row.tournament for row in rows}
    unfinished = [t.id for t in store.tournaments() if t.id in counted and t.status != "finished"]
    if unfinished:
        which = f"tournament {unfinished[0]} is" if len(unfinished) == 1 else f"tournaments {', '.join(unfinished)} are"
        note(f"note: {which} not finished (interrupted, or playing now): these ratings include only the games "
             "played so far")
    return rows, faults


def _one_game(rows: list[ResultRow], db: str) -> None:
    """Bots of two games never meet: one ranking of them all would mislead."""
    games_here = sorted({row.game for row in rows})
    if len(games_here) > 1:
        raise UsageError(f"{db} holds games of {' and '.join(games_here)}: rate one game at a time, "
                         f"e.g. --game {games_here[0]}")


def _no_ratings_hint(rows: list[ResultRow]) -> str:
    if not rows:
        return "no rated games yet; run a tournament with `arena run FILE`"
    return (f"no rated games: none of the {len({r.game_id for r in rows})} stored games can be rated (a game "
            "counts when some bot played in it, and no bot sat at its table twice); `arena games` shows "
            "their faults")


def games(
    tournament: TournamentFilter = None,
    bot: Annotated[Optional[str], typer.Option("--bot", "-b", help="Only games this bot played.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many (newest first).")] = 50,
    db: ReadDb = DEFAULT_DB,
    fmt: Format = None,
    json_out: Json = False,
) -> None:
    """List stored games, newest first, with each bot's place; `arena replay ID` shows one.

    Example: arena games --bot reactor-strong --limit 10
    """
    fmt = output_format(fmt, json_out)
    with open_db(db) as store:
        check_filters(store, tournament=tournament, bot=bot)
        rows = store.games(tournament=tournament, bot=bot, limit=limit)
    listed = [_game_row(r) for r in rows]
    echo_listing(GAME_COLUMNS, [cells for cells, _ in listed], fmt, [record for _, record in listed],
                 "no games stored yet" if tournament is None and bot is None else "no games match")


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
