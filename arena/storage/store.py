"""The store interface: what the layers above may ask of storage, whatever holds the data.

A backend is a subclass of :class:`Store` in a module of its own, plus one line in
:data:`arena.storage.backends.BACKENDS`.  The SQLite store (:mod:`arena.storage.sqlite`) explains
how it keeps each promise; every backend keeps them all:

* **Exactly once.**  :meth:`Store.add_game` of an id already stored changes nothing and returns
  False, so a game reported twice (a worker retried) is stored once.
* **Whole games.**  A game goes in with its results, faults and logs, or not at all (a ``kill -9``
  at any moment leaves whole games); a bad part is a :class:`~arena.errors.StorageError`.
* **Append-only.**  A stored game never changes: resuming and rating rely on it.
* **Schedule order.**  :meth:`Store.iter_results` hands results over in the order the scheduler
  made the games, never in commit order, so the same games always give the same ratings.
* **Ratings are a cache.**  :meth:`Store.save_ratings` replaces a tournament's history; it can
  always be recomputed from the games.
* **Views are a cache.**  :meth:`Store.save_view` keeps what a page shows that is slow to
  compute, with the stamp of the games it was made from; a reader that finds it old recomputes.
* **One run of a tournament at a time** (:meth:`Store.running`), while others read.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import Any, Self

from arena.core.faults import FaultRecord
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


class Store(ABC):
    """Bots, tournaments and finished games, as the tournament runner, the bot registry, the
    CLI and the benchmarks use them (and the reads that give back what they wrote, so that a
    backend's promises can be tested).  Get one with :func:`arena.storage.open_store`."""

    # --- reaching a store ------------------------------------------------------------------

    @classmethod
    @abstractmethod
    def open(cls, location: str, *, create: bool, readonly: bool) -> Self:
        """The store at ``location``, in this backend's spelling.  ``create``: make one where
        there is none (a read-only open never does); else a missing one is
        :class:`~arena.errors.NoDatabase`."""

    @classmethod
    @abstractmethod
    def exists(cls, location: str) -> bool:
        """Whether a store is at ``location``.  Where none is and none could be made (a file in
        a folder that does not exist), a :class:`~arena.errors.StorageError` saying so: a
        command can refuse the location before it does any work."""

    @abstractmethod
    def close(self) -> None:
        """Let go of the store (and of anything made for this session, such as a bot cache)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def remove(self) -> None:
        """Close the store and delete it, for one created by mistake (the caller checks that it
        holds nothing: see :meth:`counts`)."""

    @contextmanager
    def removed_if_unused(self, new: bool) -> Iterator[None]:
        """A block that fails before anything is stored removes the store again if it is
        ``new`` (made by this command), so that a typo in a tournament file (say, a bot name not
        registered) does not leave an empty database behind."""
        try:
            yield
        except BaseException:
            if new:
                with suppress(Exception):  # never hide the error being reported
                    if not any(self.counts().values()):
                        self.remove()
            raise

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """How many of each kind of thing are stored: ``bots``, ``bot_versions``,
        ``tournaments``, ``games``, ``results``, ``faults``, ``logs``, ``ratings``."""

    @abstractmethod
    def bot_cache(self) -> Path:
        """A folder on this machine where stored bot versions are written out to be run
        (:func:`arena.storage.registry.materialize`): the store decides where, so that bots are
        never run from the file they were registered from, which may change."""

    @abstractmethod
    def running(self, tournament: str) -> AbstractContextManager[None]:
        """Hold the right to play ``tournament`` for the block: a second run of it at the same
        time (which would play its matches twice) is a StorageError.  Released however the
        process ends."""

    @abstractmethod
    def being_played(self, tournament: str) -> bool:
        """Whether some process holds :meth:`running` for ``tournament`` now; takes nothing, so
        a read-only store may ask."""

    def status(self, tournament: Tournament) -> str:
        """How ``tournament`` stands: ``finished``; ``running`` only while a process plays it
        (:meth:`being_played`); else ``interrupted``, as a run stopped by Ctrl-C or a kill leaves
        it (running its file again resumes it)."""
        if tournament.status != "running" or self.being_played(tournament.id):
            return tournament.status
        return "interrupted"

    @abstractmethod
    def snapshot(self) -> AbstractContextManager[None]:
        """Reads in the block all see one state of the store, even while a run writes to it."""

    # --- bots -----------------------------------------------------------------------------

    @abstractmethod
    def add_bot_version(self, name: str, game: str, filename: str, content: bytes, command: list[str],
                        check_report: dict[str, Any] | None = None, make_current: bool = False) -> BotVersion:
        """Register a bot's file under ``name`` as its new current version; content it already
        has returns that version, made current only if ``make_current`` (re-adding an old file
        must not silently change what tournaments of the name play)."""

    @abstractmethod
    def bot(self, name: str) -> BotVersion:
        """The bot's current version; :class:`~arena.errors.UnknownBot` listing the bots there are."""

    @abstractmethod
    def bot_version(self, version_id: int) -> BotVersion:
        """One version by id (tournaments and games keep version ids)."""

    @abstractmethod
    def bot_history(self, name: str) -> list[BotVersion]:
        """Every version of a bot, oldest first (empty if there is no such bot)."""

    @abstractmethod
    def bot_games(self, name: str) -> int:
        """How many stored games the bot played, all its versions together."""

    @abstractmethod
    def bot_seats(self, name: str) -> list[tuple[int, int, int, int, int]]:
        """The bot's results by table size and seat: ``(players, seat, games, wins, sum of
        places)``, sorted; a win is a game it won alone (the game's winner)."""

    @abstractmethod
    def bot_content(self, version_id: int) -> bytes:
        """The stored file of one version, byte for byte."""

    @abstractmethod
    def remove_bot(self, name: str) -> int:
        """Take a bot's name out of use: deleted if it never played, else hidden from the registry
        with its games kept; the number of games.  Refused while an unfinished tournament plays it."""

    @abstractmethod
    def rename_bot(self, name: str, new: str) -> int:
        """Move a bot's versions to a new name; stored games keep the name they were played under
        (the old name is hidden); the number of such games."""

    @abstractmethod
    def bots(self, game: str | None = None) -> list[BotSummary]:
        """Every bot (optionally of one game), by name."""

    # --- tournaments ----------------------------------------------------------------------

    @abstractmethod
    def start_tournament(self, id: str, name: str, game: str, spec: dict[str, Any],
                         seed: str | int | None) -> Tournament:
        """Create a tournament, or return it unchanged when resuming with the same spec (another
        spec, game or seed under the same id is a StorageError)."""

    @abstractmethod
    def deal_key(self) -> bytes:
        """The secret key of this database's deals (:mod:`arena.core.deals`), made on first use;
        the same key for as long as the database lives, whoever asks first."""

    @abstractmethod
    def finish_tournament(self, id: str, stop: dict[str, Any] | None = None) -> None:
        """Mark a tournament finished; ``stop``: the stop rule's decision, kept with it."""

    @abstractmethod
    def grow_tournament(self, id: str, spec: dict[str, Any]) -> Tournament:
        """Keep ``spec`` as the tournament's (a longer schedule of the same games, checked by the
        caller) and mark it running again: its stored games stay, a run plays the rest."""

    @abstractmethod
    def tournament(self, id: str) -> Tournament:
        """One tournament; a StorageError naming the command that lists them if there is none."""

    @abstractmethod
    def tournaments(self) -> list[Tournament]:
        """Every tournament, newest first."""

    # --- games ----------------------------------------------------------------------------

    @abstractmethod
    def add_game(self, game: GameRow, results: list[SeatResult], faults: Iterable[FaultRecord] = (),
                 logs: dict[int, str] | None = None) -> bool:
        """Store a finished game whole (see the promises above); False if its id was stored."""

    @abstractmethod
    def tournament_size(self, tournament_id: str) -> tuple[int, int]:
        """How many games and how many matches of the tournament are stored (its progress)."""

    @abstractmethod
    def played_ids(self, tournament_id: str) -> set[str]:
        """Ids of the tournament's stored games."""

    @abstractmethod
    def games(self, tournament: str | None = None, bot: str | None = None, limit: int | None = None, *,
              bots: Sequence[str] = (), game: str | None = None, round: int | None = None,
              faults: bool = False) -> list[GameSummary]:
        """Game summaries, newest first; ``limit`` keeps the most recent ones.  The filters
        combine: ``bot`` and every one of ``bots`` sat at the table, of ``game``, in ``round``,
        and (``faults``) with at least one fault."""

    @abstractmethod
    def game_page(self, *, tournament: str | None = None, bot: str | None = None, game: str | None = None,
                  before: int | None = None, limit: int = 50, also: Sequence[str] = (), round: int | None = None,
                  faults: bool = False) -> list[GameSummary]:
        """One page of game summaries, newest first: those committed before ``seq`` ``before``
        (None: from the newest).  Keyed on the commit number, so a page deep in a long history
        costs what the first one does (the web's games list).  The filters are those of
        :meth:`games`: ``bot`` and every bot in ``also`` at the table, one ``round``, only games
        with a fault."""

    @abstractmethod
    def game_record(self, game_id: str) -> dict[str, Any]:
        """A game's record exactly as it was added; a StorageError if there is no such game."""

    @abstractmethod
    def faults(self, game_id: str) -> list[FaultRecord]:
        """A game's faults in the order they were reported, each naming its seat's bot."""

    @abstractmethod
    def tournament_faults(self, tournament: str) -> Iterator[tuple[str, FaultRecord]]:
        """Every fault of a tournament's games with its game's id, in the order reported."""

    @abstractmethod
    def bot_faults(self, name: str, limit: int) -> tuple[int, list[tuple[str, FaultRecord]]]:
        """How many faults the bot has (every game, of a tournament or not) and the newest
        ``limit`` of them with their games' ids, newest first."""

    @abstractmethod
    def logs(self, game_id: str) -> dict[int, str]:
        """Each seat's stderr log of one game."""

    @abstractmethod
    def iter_results(self, tournament: str | None = None, game: str | None = None) -> Iterator[ResultRow]:
        """Every seat result (optionally of one tournament, or of one game by name) in rating
        order, streamed: tournament by tournament in order of creation, then the games of no
        tournament; within a tournament round, table, match, game number, then game id; the
        rows of one game together, seat by seat."""

    def results(self, tournament: str | None = None, game: str | None = None) -> list[ResultRow]:
        """:meth:`iter_results` as a list."""
        return list(self.iter_results(tournament, game))

    @abstractmethod
    def fault_counts(self, tournament: str | None = None, game: str | None = None) -> dict[str, dict[str, int]]:
        """Faults per bot and kind, e.g. ``{"slowbot": {"timeout": 3}}``."""

    # --- ratings --------------------------------------------------------------------------

    @abstractmethod
    def save_ratings(self, tournament_id: str, history: Iterable[RatingPointLike]) -> None:
        """Replace the stored rating history of one tournament (or any label of a pool of games)."""

    # --- stored views ---------------------------------------------------------------------

    @abstractmethod
    def save_view(self, key: str, stamp: Sequence[int], value: dict[str, Any]) -> None:
        """Keep ``value`` (plain JSON values) as the view ``key``, made from the games ``stamp`` says."""

    @abstractmethod
    def stored_view(self, key: str) -> StoredView | None:
        """The view last saved under ``key``, or None."""

    @abstractmethod
    def scope_size(self, *, tournament: str | None = None, game: str | None = None) -> tuple[int, int]:
        """(games, newest commit number, 0 for none) of one tournament's or one game's games
        (both None: every game); cheap enough to ask on every page."""

    @abstractmethod
    def bot_rating_history(self, tournament_id: str, bot: str, most: int | None = None) -> list[RatingPoint]:
        """One bot's points of :meth:`rating_history`, in order; ``most``: at most that many,
        spread evenly over the game numbers they span, the first and the last kept (a chart of
        a long tournament)."""

    @abstractmethod
    def rating_history(self, tournament_id: str) -> list[RatingPoint]:
        """The history last saved by :meth:`save_ratings`, game by game."""
