"""``arena replay``: one stored game turn by turn, or what one seat saw."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from arena.cli.options import DEFAULT_DB, ReadDb, open_db
from arena.cli.output import echo_json
from arena.core.terminal import safe
from arena.errors import UsageError


def replay(
    game_id: Annotated[str, typer.Argument(help="A stored game's id (see `arena games`).")],
    db: ReadDb = DEFAULT_DB,
    json_out: Annotated[bool, typer.Option("--json", help="Print the full game record as JSON (with --seat: that seat's decisions).")] = False,
    seat: Annotated[Optional[int], typer.Option(min=0, max=5, help="Show what this seat was shown at each of its decisions: observation, events, legal actions, its answer and its time.")] = None,
) -> None:
    """Show a game turn by turn: every hand revealed, every event, each decision.

    The record is replayed through the rules engine, so what is shown is checked.
    Example: arena replay quickstart-reactor/r1-t1-s0-g0

    With --seat N: each decision of that seat as its bot saw it, and its answer.
    """
    from arena.cli.replay_view import replay_lines, seat_lines

    with open_db(db) as store:
        record = store.game_record(game_id)
    if seat is not None and seat >= record["config"]["players"]:
        raise UsageError(f"--seat {seat}: game {game_id} has seats 0-{record['config']['players'] - 1}")
    if seat is not None:
        if json_out:
            from arena.games import get_game
            from arena.games.seat_view import seat_decisions

            echo_json({"game_id": game_id, "seat": seat, "bot": record["seats"][seat],
                       "decisions": [d.to_json() for d in seat_decisions(get_game(record["game"]), record, seat)]})
            return
        for line in seat_lines(record, seat):
            typer.echo(safe(line))
        return
    if json_out:
        echo_json(record)
        return
    for line in replay_lines(record):
        typer.echo(safe(line))
