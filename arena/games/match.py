"""A match: a series of games with the same players in the same seats (Powder Keg R20).

Every game awards one point to its winner; the match ends when a seat reaches the game's
``points``.  The starter of each game is the seat to the left of the previous game's starter,
from a configured first starter (R20): a random starter (``starter=None``) is for single games
(R4, KE5), and a match does not take it, since redrawing it each game would break the rotation.
Games that award no point (a capped game tied at the top) can not stretch a match for ever:
after ``max_games`` games the match stops and is ranked by points.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from arena.games.base import ConfigError, Game, GameConfig, GameResult


@dataclass(slots=True)
class Match:
    """Bookkeeping of one match; pure, so a referee and a replay agree on every game's config."""

    game: Game
    config: GameConfig
    results: list[GameResult] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.config.starter is None:
            raise ConfigError("a match needs the seat that starts its first game (R20: each later game "
                              "starts one seat to the left); draw it once and pass it as starter")

    @property
    def points(self) -> int:
        return self.game.match_points(self.config)

    @property
    def max_games(self) -> int:
        # Enough for every seat to fall one point short, then some games without a winner.
        return 3 * ((self.points - 1) * self.config.players + 1)

    @property
    def scores(self) -> list[int]:
        scores = [0] * self.config.players
        for result in self.results:
            if result.winner is not None:
                scores[result.winner] += 1
        return scores

    @property
    def over(self) -> bool:
        return max(self.scores) >= self.points or len(self.results) >= self.max_games

    def next_config(self) -> GameConfig:
        """The config of the next game: the starter rotates one seat to the left each game."""
        index = len(self.results)
        start = self.config.starter
        starter = None if start is None else (start + index) % self.config.players
        return replace(self.config, starter=starter)

    def record(self, result: GameResult) -> None:
        self.results.append(result)

    @property
    def winner(self) -> int | None:
        """The seat that reached the points, or ``None`` if the match was cut off."""
        scores = self.scores
        best = max(scores)
        return scores.index(best) if best >= self.points else None
