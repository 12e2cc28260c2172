"""SQL functions for reading an arena database by hand (README, "Browsing the database").

A game's record is stored as zlib-compressed JSON (``games.record``, about a tenth of its JSON),
which plain SQLite can not unpack.  ``arena_record(record)`` gives it back as JSON text, so that
SQLite's JSON functions reach into it.  The file needs nothing of arena, and serves two tools:

* sqlite-utils: ``sqlite-utils query arena.db "SQL" --functions tools/sql/arena_sql.py``
* datasette:    ``datasette arena.db --plugins-dir tools/sql`` (the hook below)
"""

import zlib as _zlib


def arena_record(blob):
    """A stored game record (``games.record``) as JSON text; NULL stays NULL."""
    return None if blob is None else _zlib.decompress(blob).decode()


try:
    from datasette import hookimpl as _hookimpl
except ImportError:  # sqlite-utils alone: the function above is all it needs
    _hookimpl = None

if _hookimpl is not None:
    @_hookimpl(specname="prepare_connection")
    def _prepare_connection(conn):
        """Datasette's hook: every connection it opens knows arena_record()."""
        conn.create_function("arena_record", 1, arena_record, deterministic=True)
