"""``arena schema``: the protocol's JSON Schema, or a game's."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from arena.cli.options import GAMES, find_game


def schema(
    game: Annotated[Optional[str], typer.Option("--game", "-g", help=f"Print this game's schema instead ({GAMES}): what goes inside the messages.")] = None,
) -> None:
    """Print the protocol's JSON Schema (every message between referee and bot), or with --game a
    game's: its observation, actions, events and config.

    Example: arena schema --game reactor > reactor.schema.json
    """
    import json

    if game is None:
        from protocol.messages import schema as protocol_schema

        doc = protocol_schema()
    else:
        doc = find_game(game).schema()
    typer.echo(json.dumps(doc, indent=2))
