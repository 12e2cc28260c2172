"""Results people can act on, as pure functions of stored results: each reads a :class:`Store`
and returns frozen dataclasses with ``to_json()``; the CLI and the web views only present them.

* :func:`load_pool` — the games a view is computed from (a tournament, a game, or all; faulty
  games left out on request), grouped by table for the statistics;
* :func:`board` — the leaderboard: TrueSkill's order with each bot's intervals and, for each
  neighbouring pair, the chance that the upper one is truly better and whether they are
  separated (docs/confidence.md); :func:`history` — the ratings game by game;
* :func:`h2h`, :func:`cross` — one pair's head-to-head, every pair's, and results by seat;
* :func:`standings` — a tournament by its own scoring (Swiss points, tiebreaks, byes, tables).

May import the tournament layer and everything below it (the store through its interface).
"""

from arena.results.board import Board, BoardRow, History, HistoryRow, board, history
from arena.results.pairs import HeadToHead, cross, h2h
from arena.results.pool import Pool, load_pool
from arena.results.standings import RoundResult, StandingRow, Standings, TableResult, standings, stored_format

__all__ = [
    "Board", "BoardRow", "HeadToHead", "History", "HistoryRow", "Pool", "RoundResult", "StandingRow",
    "Standings", "TableResult", "board", "cross", "h2h", "history", "load_pool", "standings", "stored_format",
]
