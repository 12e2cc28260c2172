"""Storage: bots, tournaments and every finished game, kept so that a tournament resumes exactly
and its ratings can always be recomputed.

The layers above see the :class:`Store` interface (:mod:`.store`) and the rows it takes and
hands back (:mod:`.rows`), and reach a store with :func:`open_store`, which picks the backend by
the location's scheme (:mod:`.backends`).  SQLite is the one backend (:mod:`.sqlite`, with its
schema and migrations in :mod:`.schema` and its lock files in :mod:`.locks`); :mod:`.records`
encodes what is stored, and :mod:`.registry` registers bots and writes them out to run.
May import ``arena.core``, ``arena.bots`` and ``arena.errors``; never the referee, the
tournament or the CLI.
"""

from arena.storage.backends import open_store, store_exists
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
    StoredView,
    Tournament,
)
from arena.storage.store import Store

__all__ = [
    "BotSummary",
    "BotVersion",
    "GameRow",
    "GameSummary",
    "RatingPoint",
    "RatingPointLike",
    "ResultRow",
    "SeatResult",
    "Store",
    "StoredView",
    "Tournament",
    "content_sha256",
    "decode_record",
    "encode_record",
    "open_store",
    "seat_results",
    "store_exists",
]
