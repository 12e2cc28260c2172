"""The ids of matches and games, made and read back in one place.

A match of a tournament is ``{tournament}/{pairing}`` (the pairing id says round, table and seat
rotation, e.g. ``cup/r2-t3-s1``); its games are ``{match}-g{n}``, numbered from 0.  Ids are
what a resumed tournament looks stored games up by, so their grammar must never drift between
the code that writes them and the code that reads them."""

from __future__ import annotations

from dataclasses import dataclass

GAME_SEPARATOR = "-g"


def match_id(tournament: str, pairing: str) -> str:
    """The id of a tournament's match played at ``pairing``."""
    return f"{tournament}/{pairing}"


@dataclass(frozen=True, slots=True)
class GameId:
    """A game's id: its match's id and its number within the match."""

    match: str
    number: int

    def __str__(self) -> str:
        return f"{self.match}{GAME_SEPARATOR}{self.number}"

    @classmethod
    def parse(cls, text: str) -> "GameId":
        """Read an id made by ``str(GameId(...))``; a ``ValueError`` for anything else."""
        match, separator, number = text.rpartition(GAME_SEPARATOR)
        if not separator or not match or not number.isdigit():
            raise ValueError(f"{text!r} is not a game id of the form MATCH{GAME_SEPARATOR}N")
        return cls(match, int(number))


def game_id(match: str, number: int) -> str:
    """The id of game ``number`` of ``match``."""
    return str(GameId(match, number))
