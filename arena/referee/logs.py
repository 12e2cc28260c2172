"""How much of a bot's stderr a game keeps, and how much of a line a report shows."""

from __future__ import annotations

# Of a game without a fault, the stored stderr is its last 8 KB (a faulted game keeps up to the
# sandbox's 64 KB tail, for its traceback): a chatty bot otherwise stored 64 KB a game, and a long
# tournament's database grew by gigabytes of chatter.
CLEAN_GAME_LOG_CHARS = 8 * 1024


# A seat's stored stderr over one match is bounded too: a bot that faulted every other game (never
# disqualified) could store 64 KB a game, twice (in the record and in the logs table).  Once a seat
# has kept MATCH_LOG_CHARS in a match, each of its later games keeps only its last SPENT_LOG_CHARS,
# which still holds a traceback's last lines.
MATCH_LOG_CHARS = 256 * 1024


SPENT_LOG_CHARS = 2 * 1024


def kept_log(text: str, *, faulted: bool, spent: int) -> str:
    """The tail of one game's stderr to store, given what the seat has kept so far in its match."""
    if faulted:
        limit, why = len(text), ""
    else:
        limit, why = CLEAN_GAME_LOG_CHARS, f"a game without a fault keeps the last {CLEAN_GAME_LOG_CHARS}"
    left = max(MATCH_LOG_CHARS - spent, SPENT_LOG_CHARS)
    if left < limit:
        limit = left
        why = (f"this bot had stored {spent} of the {MATCH_LOG_CHARS} characters of stderr a match keeps, "
               f"so this game keeps at most its last {left}")
    if len(text) <= limit:
        return text
    kept = text[-limit:]
    return f"[{len(text) - len(kept)} earlier characters not kept: {why} of the bot's stderr]\n{kept}"


# A line of a bot's stderr as a terminal report shows it (``arena play``, ``arena check``): a bot
# can write one line of its whole 64 KB tail, and a report is read by people.
SHOWN_LINE_CHARS = 300


def shown_line(line: str) -> str:
    """One line of a bot's stderr cut for a report (the stored log keeps it whole)."""
    if len(line) <= SHOWN_LINE_CHARS:
        return line
    return f"{line[:SHOWN_LINE_CHARS]}... [{len(line) - SHOWN_LINE_CHARS} more characters]"
