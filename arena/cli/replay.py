"""``arena replay``: one stored game turn by turn, or each decision of one seat as its bot saw it."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from arena.cli.options import DEFAULT_DB, ReadDb, open_db
from arena.cli.output import echo_json, echo_lines
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
    from arena.cli.replay_view import replay_lines, seat_json, seat_lines

    with open_db(db) as store:
        record = store.game_record(game_id)
    if seat is not None and seat >= record["config"]["players"]:
        raise UsageError(f"--seat {seat}: game {game_id} has seats 0-{record['config']['players'] - 1}")
    if json_out:
        echo_json(record if seat is None else seat_json(game_id, record, seat))
    else:
        echo_lines(replay_lines(record) if seat is None else seat_lines(record, seat))
