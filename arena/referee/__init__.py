"""The referee: plays matches (one or more games at one table) between bot programs.

It owns one layer of the harness: it drives each game through the protocol, enforces the time
limits and turns every bot fault into an outcome.  It imports the games, the sandbox, the bots'
specs and the protocol, never storage, tournaments or the CLI.

- ``session``: :class:`Referee` and :class:`Session`, bots kept warm across matches;
- ``table``: the games of one lineup in play at once, and faults turned into forfeits;
- ``seat``: one bot process, its socket and the requests it owes;
- ``inplay``: the matches, games and requests in play, as plain data the table and seats share;
- ``reports``: what a finished game and match hand back (records, faults, logs);
- ``logs``: how much of a bot's stderr is kept; ``workroot``: the referee's socket folders;
- ``config``: the referee's policies; ``standing``: the disqualification rule;
- ``check`` and ``play``: a bot author's check and ad-hoc matches, built on the above.
"""

from arena.bots.resolve import bot_spec
from arena.bots.spec import BotSpec
from arena.referee.config import DEFAULT_CONCURRENT, DEFAULT_FAULTS_TO_DISQUALIFY, RefereeConfig
from arena.core.faults import FaultRecord
from arena.referee.reports import GameReport, MatchPlan, MatchReport
from arena.referee.session import Referee, Session

__all__ = ["DEFAULT_CONCURRENT", "DEFAULT_FAULTS_TO_DISQUALIFY", "BotSpec", "FaultRecord", "GameReport",
           "MatchPlan", "MatchReport", "Referee", "RefereeConfig", "Session", "bot_spec"]
