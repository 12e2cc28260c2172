"""Running a tournament: the scheduler says which tables to play, an executor plays them.

The coordinator (this process) is the only writer to the database: workers play matches and
send each finished game back at once; the coordinator stores it in one transaction.  Because
the schedule is deterministic given the seed (Swiss rounds given the stored results too),
running the same tournament again skips every stored game and plays only what is missing, so
an interrupted tournament resumes where it stopped.

Modules: ``runner`` (a :class:`Tournament` bound to a store: bots, schedule, resume, ratings),
``formats`` (which tables to play and how they score: round-robin and Swiss behind one
interface), ``file`` (tournament files: a table of fields, each format adding its own),
``fields`` (the kinds of field a file has) and ``spec`` (a tournament's definition as plain
data).  The playing itself is the execution layer's (:mod:`arena.execution`).

May import the execution layer and everything below it (the store through its interface).
"""

from arena.tournament.formats import place_points
from arena.tournament.runner import (
    Progress,
    Tournament,
    TournamentOutcome,
    referee_config,
    stored_results,
)

__all__ = ["Progress", "Tournament", "TournamentOutcome", "place_points", "referee_config", "stored_results"]
