"""``arena schema``: the protocol's JSON Schema, or a game's."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from arena.cli.options import GAMES, find_game
from arena.cli.output import echo_json
from protocol.messages import schema as protocol_schema


def schema(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Print this game's schema instead ({GAMES}): what goes inside the messages.")] = None,
) -> None:
    """Print the protocol's JSON Schema (every message between referee and bot), or with --game a
    game's: its observation, actions, events and config.

    Example: arena schema --game reactor > reactor.schema.json
    """
    echo_json(protocol_schema() if game is None else find_game(game).schema())
