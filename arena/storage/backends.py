"""Which backend holds the store at a location: one table of schemes.

A location is what a user gives as ``--db``.  One with a scheme (``sqlite:///arena.db``) goes to
the backend of that scheme; one without (a file path such as ``arena.db``, or ``:memory:``) to
the SQLite store, as it always did.  Another backend is a module with a :class:`Store` subclass
and one line in :data:`BACKENDS`.
"""

from __future__ import annotations

import os
import re

from arena.errors import StorageError
from arena.storage.sqlite import SqliteStore
from arena.storage.store import Store

# Scheme (before "://", lower case) -> the backend that opens such locations.
BACKENDS: dict[str, type[Store]] = {
    "sqlite": SqliteStore,
}
DEFAULT_SCHEME = "sqlite"  # a location without a scheme: a file path, or ":memory:"

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")  # as RFC 3986 spells a scheme


def backend(location: str | os.PathLike[str]) -> type[Store]:
    """The backend of ``location``; an unknown scheme is a StorageError listing the known ones."""
    text = os.fspath(location)
    found = _SCHEME.match(text)
    if found is None:
        return BACKENDS[DEFAULT_SCHEME]
    scheme = found.group(1).lower()
    if scheme not in BACKENDS:
        known = ", ".join(f"{name}://" for name in BACKENDS)
        raise StorageError(f"unknown storage scheme {scheme}:// in {text} (known: {known}); give a database "
                           "file such as arena.db, or sqlite:///PATH")
    return BACKENDS[scheme]


def open_store(location: str | os.PathLike[str], *, create: bool = True, readonly: bool = False) -> Store:
    """The store at ``location``.  ``create``: make one where there is none (a read-only open
    never does; a missing store is then :class:`~arena.errors.NoDatabase`).  ``readonly``: read
    and never write, so that a finished tournament can be looked at where it can not be changed."""
    return backend(location).open(os.fspath(location), create=create, readonly=readonly)


def store_exists(location: str | os.PathLike[str]) -> bool:
    """Whether a store is at ``location``; a StorageError where none is and none could be made
    (an unknown scheme, a file in a folder that does not exist), before any work is done."""
    return backend(location).exists(os.fspath(location))
