"""Listings of what the database holds: ``ratings``, ``games`` and ``tournaments``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from arena.cli.options import (
    DEFAULT_DB,
    FORMAT_HELP,
    GAMES,
    JSON_HELP,
    ReadDb,
    check_tournament,
    game_filter,
    open_db,
    output_format,
)
from arena.cli.output import echo_listing
from arena.errors import UsageError


def ratings(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Only games of this game ({GAMES}).")] = None,
    tournament: Annotated[Optional[str], typer.Option("--tournament", "-t", help="Only this tournament.")] = None,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
    db: ReadDb = DEFAULT_DB,
) -> None:
    """TrueSkill ratings recomputed from the stored games: rank, bot, score (mu - 3 sigma), mu, sigma,
    games, wins, mean place and faults.

    Example: arena ratings --tournament quickstart-reactor --format markdown
    """
    from arena import ratings as rating
    from arena.cli.leaderboard import format_table

    fmt = output_format(fmt, json_out)
    game = game_filter(game)
    with open_db(db) as store:
        check_tournament(store, tournament)
        if tournament is not None and game is not None and store.tournament(tournament).game != game:
            raise UsageError(f"tournament {tournament!r} is a {store.tournament(tournament).game} tournament, "
                             f"not {game}: drop --game, or name a {game} tournament")
        with store.snapshot():  # results and faults of the same games, while a run may write
            rows = store.results(tournament=tournament, game=game)
            faults = store.fault_counts(tournament=tournament, game=game)
        counted = {row.tournament for row in rows}
        unfinished = [t.id for t in store.tournaments() if t.id in counted and t.status != "finished"]
    if unfinished:  # on stderr: the data formats' stdout stays the table alone
        which = (f"tournament {unfinished[0]} is" if len(unfinished) == 1
                 else f"tournaments {', '.join(unfinished)} are")
        typer.echo(f"note: {which} not finished (interrupted, or playing now): these ratings include only "
                   "the games played so far", err=True)
    games_here = sorted({row.game for row in rows})
    if len(games_here) > 1:  # one ranking of bots that never meet would mislead
        raise UsageError(f"{db} holds games of {' and '.join(games_here)}: rate one game at a time, "
                         f"e.g. --game {games_here[0]}")
    outcomes = rating.outcomes_from_results(rows)
    if not outcomes:
        hint = ("no rated games yet; run a tournament with `arena run FILE`" if not rows else
                f"no rated games: none of the {len({r.game_id for r in rows})} stored games can be rated (a game "
                "counts when some bot played in it, and no bot sat at its table twice); `arena games` shows "
                "their faults")
        if fmt == "table":
            typer.echo(hint)
        else:  # data formats: an empty table on stdout, the hint on stderr
            typer.echo(format_table([], fmt).rstrip("\n"))
            typer.echo(hint, err=True)
        return
    table = rating.rate(outcomes, rating.make_env())
    typer.echo(format_table(rating.leaderboard(table, outcomes, faults), fmt).rstrip("\n"))


def games(
    tournament: Annotated[Optional[str], typer.Option("--tournament", "-t", help="Only this tournament.")] = None,
    bot: Annotated[Optional[str], typer.Option("--bot", "-b", help="Only games this bot played.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many (newest first).")] = 50,
    db: ReadDb = DEFAULT_DB,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """List stored games, newest first, with each bot's place; `arena replay ID` shows one.

    Example: arena games --bot reactor-strong --limit 10
    """
    from dataclasses import asdict

    from arena.referee.standing import disqualified_seats

    fmt = output_format(fmt, json_out)
    with open_db(db) as store:
        check_tournament(store, tournament)
        if bot is not None:
            store.bot(bot)  # an unknown name is an error listing the bots
        rows = store.games(tournament=tournament, bot=bot, limit=limit)
    cells, records = [], []
    for r in rows:
        order = sorted(range(len(r.places)), key=r.places.__getitem__)
        notes = (["capped"] if r.capped else []) + ([f"{r.faults} fault(s)"] if r.faults else [])
        out = disqualified_seats(r.forfeited, r.collateral)
        if out:  # forfeited with no fault in this game: say why, or it reads as a plain loss
            notes.append(f"{', '.join(r.bots[s] for s in out)} disqualified")
        cells.append([r.id, r.game, ", ".join(f"{r.places[s]}. {r.bots[s]}" for s in order),
                      "; ".join(notes) or "-"])
        record = asdict(r)
        del record["forfeited"], record["collateral"]
        records.append({**record, "disqualified": out})
    echo_listing(("id", "game", "places", "notes"), cells, fmt, records,
                 "no games stored yet" if tournament is None and bot is None else "no games match")


def tournaments(
    db: ReadDb = DEFAULT_DB,
    fmt: Annotated[Optional[str], typer.Option("--format", help=FORMAT_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """List the tournaments in the database, newest first: finished, running (being played
    now) or interrupted (run its file again to resume it).

    Example: arena tournaments --db arena.db
    """
    from dataclasses import asdict

    fmt = output_format(fmt, json_out)
    with open_db(db) as store:
        # A run that was stopped (Ctrl-C, a kill) leaves its tournament unfinished: "running"
        # only while a process plays it, else "interrupted" (running its file again resumes it).
        rows = [(t, t.status if t.status != "running" or store.being_played(t.id) else "interrupted")
                for t in store.tournaments()]
        # The spec keeps each bot's version as a row id of the database: show what `bots show` shows.
        records = []
        for t, status in rows:
            spec = dict(t.spec)
            versions = {name: store.bot_version(vid) for name, vid in spec.get("bot_versions", {}).items()}
            spec["bot_versions"] = {name: {"version": v.version, "sha256": v.sha256} for name, v in versions.items()}
            records.append({**asdict(t), "spec": spec, "status": status})
    echo_listing(("id", "game", "status", "created"),
                 [[t.id, t.game, status, t.created] for t, status in rows], fmt, records,
                 "no tournaments yet; run one with `arena run FILE`")
