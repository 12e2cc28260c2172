"""The SQLite schema: its ordered migration steps and the rating order they index.

``STEPS`` is the ordered list of schema changes, applied once each and recorded in
``_sqlite_migrations``; a later version appends a step, and opening an old file upgrades it.
Never edit or reorder a released step.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

MIGRATION_SET = "arena"

_SCHEMA_1 = """
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    created TEXT NOT NULL,
    -- The version that `bot(name)` returns: the one registered last, even when that was a
    -- revert to older content (which reuses the older version row).
    current INTEGER REFERENCES bot_versions(id)
);
CREATE TABLE bot_versions (
    id INTEGER PRIMARY KEY,
    bot TEXT NOT NULL REFERENCES bots(name),
    version INTEGER NOT NULL CHECK (version >= 1),
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    filename TEXT NOT NULL,
    content BLOB NOT NULL,
    command TEXT NOT NULL,
    added TEXT NOT NULL,
    check_report TEXT NOT NULL DEFAULT '{}',
    UNIQUE (bot, version),
    UNIQUE (bot, sha256)
);
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    spec TEXT NOT NULL,
    seed,  -- no type: keeps an int seed an int and a str seed a str
    created TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished')),
    finished TEXT
);
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    -- Commit order, which is finishing order (the coordinator stores a game when it ends);
    -- ratings replay games in this order.  Explicit because VACUUM may renumber rowids.
    seq INTEGER NOT NULL UNIQUE,
    tournament TEXT REFERENCES tournaments(id),
    game TEXT NOT NULL,
    variants TEXT NOT NULL DEFAULT '[]',
    players INTEGER NOT NULL CHECK (players BETWEEN 2 AND 6),
    seats TEXT NOT NULL,
    round INTEGER,
    table_no INTEGER,
    match_game INTEGER NOT NULL DEFAULT 0,
    seed,
    started TEXT,
    finished TEXT NOT NULL,
    capped INTEGER NOT NULL DEFAULT 0 CHECK (capped IN (0, 1)),
    winner INTEGER CHECK (winner IS NULL OR winner BETWEEN 0 AND players - 1),
    duration_ms INTEGER,
    record BLOB NOT NULL
);
CREATE INDEX games_tournament ON games(tournament);
CREATE TABLE results (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL CHECK (seat >= 0),
    bot_version_id INTEGER NOT NULL REFERENCES bot_versions(id),
    bot TEXT NOT NULL REFERENCES bots(name),
    place INTEGER NOT NULL CHECK (place >= 1),
    points INTEGER NOT NULL DEFAULT 0,
    forfeited INTEGER NOT NULL DEFAULT 0 CHECK (forfeited IN (0, 1)),
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX results_bot ON results(bot);
CREATE TABLE faults (
    id INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind <> ''),
    message TEXT NOT NULL DEFAULT '',
    decision INTEGER,
    -- A fault belongs to a seat that played this game.
    FOREIGN KEY (game_id, seat) REFERENCES results(game_id, seat)
);
CREATE INDEX faults_game ON faults(game_id);
CREATE TABLE logs (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    stderr TEXT NOT NULL,
    PRIMARY KEY (game_id, seat),
    FOREIGN KEY (game_id, seat) REFERENCES results(game_id, seat)
);
CREATE TABLE ratings (
    tournament_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    bot TEXT NOT NULL,
    game_id TEXT REFERENCES games(id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    PRIMARY KEY (tournament_id, seq, bot)
);
-- Games are append-only: ratings and resumption are only sound if a stored game never changes.
CREATE TRIGGER games_no_update BEFORE UPDATE ON games
    BEGIN SELECT RAISE(ABORT, 'games are append-only'); END;
CREATE TRIGGER games_no_delete BEFORE DELETE ON games
    BEGIN SELECT RAISE(ABORT, 'games are append-only'); END;
CREATE TRIGGER results_no_update BEFORE UPDATE ON results
    BEGIN SELECT RAISE(ABORT, 'results are append-only'); END;
CREATE TRIGGER results_no_delete BEFORE DELETE ON results
    BEGIN SELECT RAISE(ABORT, 'results are append-only'); END;
"""


def _v1_initial(db: Database) -> None:
    """Version 1: every table of the first release."""
    db.executescript(_SCHEMA_1)


def _match_key(column: str = "id") -> str:
    """SQL for a game's match within its table, read from the game's id as the runner wrote it
    up to version 3: the id without its trailing game number, e.g. ``cup/r2-t3-s1-g`` for
    ``cup/r2-t3-s1-g10`` (the number is ordered as ``match_game``, so game 10 comes after game
    9).  Used by the released steps 2 and 4 only: since version 4 a game's match is a column."""
    return f"rtrim({column}, '0123456789')"


def _v2_schedule_order(db: Database) -> None:
    """Version 2: an index in rating (schedule) order, replacing ``games_tournament``.

    Version 1 rated games in commit order (``seq``; the comment on it in ``_SCHEMA_1`` is out
    of date), which depends on worker count and timing.  This index lets
    :data:`RATING_ORDER_SQL` stream a tournament's games in schedule order without sorting; its
    first column serves every ``tournament = ?`` lookup the old index served.
    """
    db.execute(
        "CREATE INDEX games_schedule ON games"
        f" (tournament, round, table_no, {_match_key()}, match_game, id)"
    )
    db.execute("DROP INDEX games_tournament")


def _v3_collateral_faults(db: Database) -> None:
    """Version 3: ``faults.collateral`` marks a forfeit caused by a fault in another game played
    at the same time (its bot was stopped), which does not count towards disqualification.

    Before, only the end of the message said so.  Older rows are marked from that ending, as
    the referee wrote it then; from now on the flag alone decides (see arena.referee.standing)."""
    db.execute("ALTER TABLE faults ADD COLUMN collateral INTEGER NOT NULL DEFAULT 0 CHECK (collateral IN (0, 1))")
    db.execute("UPDATE faults SET collateral = 1"
               " WHERE message LIKE '%(in game %, played at the same time; the bot was stopped)'")


def _v4_match_ids(db: Database) -> None:
    """Version 4: ``games.match_id``, the match a game belongs to as the tournament runner names
    it (:func:`arena.core.ids.match_id`), so that the schedule index and the rating order no
    longer cut it out of the game id.

    Games stored before are given theirs here, from their ids in the grammar the runner wrote
    them in, ``{match}-g{n}`` (:class:`arena.core.ids.GameId`): the one place storage reads an
    id.  An id of any other form belongs to no match (NULL), and is ordered by its game number
    and id as before.  The index in schedule order is made again on the column."""
    db.execute("ALTER TABLE games ADD COLUMN match_id TEXT")
    # Games are append-only; the trigger steps aside for this one fill, within the step's
    # transaction, and comes back as it was.
    db.execute("DROP TRIGGER games_no_update")
    stem = _match_key()  # the id without its number: "{match}-g"
    db.execute(f"UPDATE games SET match_id = substr({stem}, 1, length({stem}) - 2)"
               f" WHERE {stem} <> id AND substr({stem}, -2) = '-g' AND length({stem}) > 2")
    db.execute("CREATE TRIGGER games_no_update BEFORE UPDATE ON games"
               " BEGIN SELECT RAISE(ABORT, 'games are append-only'); END")
    db.execute("DROP INDEX games_schedule")
    db.execute("CREATE INDEX games_schedule ON games (tournament, round, table_no, match_id, match_game, id)")


# Views for people browsing the database with sqlite-utils, datasette or the sqlite3 shell
# (README, "Browsing the database"): bot names and places in plain columns, no code needed.
# They are plain counts over the stored games; the tournament's own scoring, tiebreaks and
# confidence are `arena standings`, `arena h2h` and `arena ratings`.
_VIEWS_5 = """
CREATE VIEW seat_results AS
SELECT r.game_id, g.tournament, g.game, g.round, g.table_no, g.match_id, g.match_game, g.players,
       r.seat, r.bot, v.version AS bot_version, r.place, r.points AS win, r.forfeited,
       (SELECT count(*) FROM faults f WHERE f.game_id = r.game_id AND f.seat = r.seat) AS faults,
       g.capped, g.finished
FROM results r JOIN games g ON g.id = r.game_id JOIN bot_versions v ON v.id = r.bot_version_id;

CREATE VIEW fault_list AS
SELECT f.id, f.game_id, g.tournament, g.game, g.round, g.table_no, f.seat, f.bot, f.kind, f.message,
       f.decision, f.collateral, g.finished
FROM faults f JOIN games g ON g.id = f.game_id;

CREATE VIEW bot_standings AS
SELECT g.tournament, g.game, r.bot, count(*) AS games, sum(r.points) AS wins,
       round(avg(r.place), 3) AS mean_place, sum(r.forfeited) AS forfeits,
       (SELECT count(*) FROM faults f JOIN games fg ON fg.id = f.game_id
         WHERE f.bot = r.bot AND fg.tournament IS g.tournament AND fg.game = g.game) AS faults
FROM results r JOIN games g ON g.id = r.game_id
GROUP BY g.tournament, g.game, r.bot;

CREATE VIEW head_to_head AS
SELECT g.tournament, g.game, a.bot AS bot_a, b.bot AS bot_b, count(*) AS games,
       sum(a.place < b.place) AS a_ahead, sum(b.place < a.place) AS b_ahead, sum(a.place = b.place) AS level,
       round(avg(b.place - a.place), 3) AS mean_place_difference
FROM results a JOIN results b ON b.game_id = a.game_id AND a.bot < b.bot
JOIN games g ON g.id = a.game_id
GROUP BY g.tournament, g.game, a.bot, b.bot;

CREATE VIEW game_results AS
SELECT g.id, g.tournament, g.game, g.round, g.table_no, g.match_game, g.players, g.seed, g.variants,
       g.capped, g.winner, g.duration_ms, g.finished,
       (SELECT json_group_array(json_object('seat', r.seat, 'bot', r.bot, 'place', r.place,
                                            'forfeited', json(CASE r.forfeited WHEN 1 THEN 'true' ELSE 'false' END)))
          FROM (SELECT * FROM results WHERE game_id = g.id ORDER BY seat) r) AS seats,
       (SELECT json_group_array(json_object('seat', f.seat, 'bot', f.bot, 'kind', f.kind, 'message', f.message))
          FROM (SELECT * FROM faults WHERE game_id = g.id ORDER BY id) f) AS faults
FROM games g;
"""


def _v5_views(db: Database) -> None:
    """Version 5: views that show results without code: ``seat_results`` (one row per seat per
    game, with bot names, versions and places), ``fault_list`` (faults with their bot and game),
    ``bot_standings`` (per tournament and bot: games, wins, mean place, forfeits, faults),
    ``head_to_head`` (per tournament and pair of bots, each pair once with ``bot_a < bot_b``:
    shared games, who finished ahead, mean place difference) and ``game_results`` (a game's
    seats and faults as JSON arrays).  A game's full record stays one compressed blob (about a
    tenth of its JSON): README, "Browsing the database", shows how to read it as JSON."""
    db.executescript(_VIEWS_5)


def _v6_stop_decisions(db: Database) -> None:
    """Version 6: ``tournaments.stop``, the stop rule's last decision on a tournament run under
    one (JSON: why it stopped and every neighbouring pair, settled or still open); NULL for a
    tournament that plays its schedule whole."""
    db.execute("ALTER TABLE tournaments ADD COLUMN stop TEXT")


def _v7_removed_bots(db: Database) -> None:
    """Version 7: ``bots.removed``, when `arena bots remove` (or a rename) took a name that has
    played games out of use (its row stays: the games' results name it, and stored games never
    change), and an index of results by bot version."""
    db.execute("ALTER TABLE bots ADD COLUMN removed TEXT")
    # A bot's games are counted by its versions (under whatever name or label they were played).
    db.execute("CREATE INDEX results_version ON results(bot_version_id)")
def _v8_secrets(db: Database) -> None:
    """Version 8: ``secrets``, what the database keeps from every bot: the key that makes its
    tournaments' deal seeds (``deal_key``, see :mod:`arena.core.deals`), made on first use.

    A key travels with its database, so a copy of the file reproduces its tournaments; no bot
    sees the database (bubblewrap), and a new file is readable by its owner only."""
    db.execute("CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL)")


def _v9_newest_first(db: Database) -> None:
    """Version 9: indexes for pages of games newest first (``Store.game_page``, the web's games
    list) of one tournament or of one game.  A games row carries its record, so a walk that
    reads rows to find a tournament's newest games reads the whole table; these answer from the
    index and stop after a page."""
    db.execute("CREATE INDEX games_tournament_seq ON games (tournament, seq)")
    db.execute("CREATE INDEX games_game_seq ON games (game, seq)")


def _v10_stored_views(db: Database) -> None:
    """Version 10: ``stored_views``, what the pages show that is slow to compute from a large pool (a
    scope's leaderboard and crosstable, a tournament's standings), written by the run that
    played the games (:meth:`Store.save_view`), each with the ``stamp`` of the games it was made
    from.  A cache like ``ratings``: always recomputable from the games, and a page that finds
    its stamp old serves it while the server recomputes it, instead of making a visitor wait
    minutes for 50,000 games to be rated.

    And two indexes for a bot's page: its rating history (``Store.bot_rating_history``, read
    from the index alone), which the key of ``ratings`` (tournament, seq, bot) finds only by
    reading every bot's rows, and its
    results by seat (``Store.bot_seats``), which joined each result to its game's row, record and
    all; from the index the join reads no row.  Like the views, a reader may do without them."""
    db.execute("CREATE TABLE stored_views (key TEXT PRIMARY KEY, stamp TEXT NOT NULL, value BLOB NOT NULL, "
               "made TEXT NOT NULL)")
    db.execute("CREATE INDEX ratings_bot ON ratings (tournament_id, bot, seq, game_id, mu, sigma)")
    db.execute("CREATE INDEX games_outcome ON games (id, players, winner)")


# Steps a read-only open may do without: what they add is a cache that the readers find missing
# and recompute, so a file in a folder that can not be written still opens after an upgrade.
OPTIONAL_FOR_READING = frozenset({"_v10_stored_views"})

# Ordered schema steps.  Never edit or reorder a released step: append a new one.
STEPS: list[Callable[[Database], None]] = [_v1_initial, _v2_schedule_order, _v3_collateral_faults, _v4_match_ids,
                                           _v5_views, _v6_stop_decisions, _v7_removed_bots, _v8_secrets,
                                           _v9_newest_first, _v10_stored_views]

# Every seat result of one tournament's games (``tournament IS NULL``: games of no tournament)
# in rating order: the scheduler's order, round by round (a Swiss round is paired on the results
# of the rounds before it), table by table, match by match (its seat rotation; ``match_id`` as
# the runner stored it), then game by game within the match; the game id breaks any remaining tie.  ``g.rowid`` changes nothing in the
# order (ids are unique) but tells SQLite that each game is one group, so the walk down
# ``games_schedule`` and the results' primary key needs no sort (no temp B-tree): the rows stream.
RATING_ORDER_SQL = (
    "SELECT r.game_id, g.seq, g.tournament, g.game, r.seat, r.bot, r.bot_version_id, r.place,"
    " r.points, r.forfeited, g.round, g.table_no, g.match_id,"
    " (SELECT count(*) FROM faults f WHERE f.game_id = r.game_id AND f.seat = r.seat)"
    " FROM games g JOIN results r ON r.game_id = g.id"
    " WHERE g.tournament IS :t AND (:g IS NULL OR g.game = :g)"
    " ORDER BY g.round, g.table_no, g.match_id, g.match_game, g.id, g.rowid, r.seat"
)


def migrations() -> Migrations:
    """Every step of :data:`STEPS`, as sqlite-utils applies them."""
    steps = Migrations(MIGRATION_SET)
    for step in STEPS:
        steps()(step)
    return steps
