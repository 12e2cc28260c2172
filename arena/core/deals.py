"""Deal seeds that no bot can compute.

A game's deal follows from its seed, and the engine that deals is importable by any bot.  A seed
made only of public parts (the tournament file's ``seed``, the schedule's labels, the match id a
bot is told) lets a bot re-run the deal and see every hidden card.  So a tournament's match seeds
are a keyed hash (HMAC-SHA256) of those public labels (and the tournament's name) under a secret
key that the database holds and that never reaches a bot: without the key the seeds are
unpredictable; with it (the same database, or one given its key) a tournament deals the same games
again, and a resumed tournament deals what it would have dealt uninterrupted.

The seed a bot is given for its own randomness (``game_start.seed``) is a separate one-way hash of
the game's seed (:func:`arena.referee.seat.bot_seed`): it reveals nothing of the deal.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

from arena.errors import ConfigError

KEY_BYTES = 32  # 256 bits: as strong as the hash
KEY_ENV = "ARENA_DEAL_KEY"  # a key given explicitly, to a database that has none yet (hex)
ROOT_SEED_BYTES = 16  # a root seed drawn when none is given: 128 bits, beyond any guess

# How a tournament's match seeds are made, stored with each tournament (its spec's ``deals``) so
# that one begun under an earlier rule resumes under it.  1: the public label itself (before
# issue 15); 2: :func:`deal_seed` of the label under the database's key.
PUBLIC_LABELS = 1
KEYED = 2
DEALS = KEYED


def new_key() -> bytes:
    """The key for a database that has none: the one given in ``ARENA_DEAL_KEY`` (to reproduce
    the tournaments of the database it was read from), else a fresh random one."""
    given = given_key()
    return secrets.token_bytes(KEY_BYTES) if given is None else given


def given_key() -> bytes | None:
    """The key given in ``ARENA_DEAL_KEY``, if any (64 hex digits)."""
    text = os.environ.get(KEY_ENV, "").strip()
    if not text:
        return None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ConfigError(f"{KEY_ENV} must be {2 * KEY_BYTES} hex digits (a database's key, as "
                          "`sqlite3 arena.db \"SELECT hex(value) FROM secrets\"` prints it)")
    return key


def random_root_seed() -> str:
    """A root seed for a run given none: random, so no bot can guess it, and printed by the caller
    so that the run can be repeated on purpose."""
    return secrets.token_hex(ROOT_SEED_BYTES)


def deal_seed(key: bytes, label: str) -> str:
    """The secret seed of the deal named ``label`` (public: root seed and schedule labels)."""
    if len(key) < KEY_BYTES:
        raise ValueError(f"a deal key has {KEY_BYTES} bytes, not {len(key)}")
    return hmac.new(key, f"arena-deal:{label}".encode(), hashlib.sha256).hexdigest()
