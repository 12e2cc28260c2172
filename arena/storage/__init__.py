"""Storage: bots, tournaments and every finished game, kept so that a tournament resumes exactly
and its ratings can always be recomputed.

Owns the database and everything that knows its layout: the rows it takes and hands back
(:mod:`.rows`), how records are encoded (:mod:`.records`), the SQLite schema and its migrations
(:mod:`.schema`), lock files (:mod:`.locks`), the SQLite store (:mod:`.sqlite`), and the bot
registry (:mod:`.registry`).  It may import ``arena.core``, ``arena.bots`` and ``arena.errors``,
never the referee, the tournament or the CLI.
"""

from arena.storage.records import content_sha256, decode_record, encode_record, seat_results
from arena.storage.rows import (
    BotSummary,
    BotVersion,
    GameRow,
    GameSummary,
    RatingPoint,
    RatingPointLike,
    ResultRow,
    SeatResult,
    Tournament,
)
from arena.storage.schema import RATING_ORDER_SQL, STEPS
from arena.storage.sqlite import BUSY_TIMEOUT_MS, DEFAULT_PATH, Store

__all__ = [
    "BUSY_TIMEOUT_MS",
    "DEFAULT_PATH",
    "RATING_ORDER_SQL",
    "STEPS",
    "BotSummary",
    "BotVersion",
    "GameRow",
    "GameSummary",
    "RatingPoint",
    "RatingPointLike",
    "ResultRow",
    "SeatResult",
    "Store",
    "Tournament",
    "content_sha256",
    "decode_record",
    "encode_record",
    "seat_results",
]
