"""A bot's fault in one game, as the harness keeps it: the one record the referee makes, the
store keeps and every view shows.  The protocol's :class:`~protocol.faults.Fault` (kind and
message) is what a bot is told; this adds where and whose it was."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.faults import Fault, FaultKind
from protocol.text import MESSAGE_LIMIT, bounded

# A record's message is the protocol fault's (bounded already) and at most a note of the
# referee's own (a collateral fault names the game it happened in): room for both.
RECORD_MESSAGE_LIMIT = MESSAGE_LIMIT + 200


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """What happened, in words the bot's author can act on.

    ``decision`` is the index of the decision it happened at, if any; ``bot`` the name of the bot
    in ``seat`` (the store fills it in from the seat when it is not given).  ``collateral``: a
    forfeit because the bot was stopped for a fault in another game played at the same time; it
    does not count towards disqualification (see :mod:`arena.referee.standing`).
    """

    seat: int
    kind: str  # a FaultKind's value (the store also keeps kinds it does not know)
    message: str = ""
    decision: int | None = None
    bot: str | None = None
    collateral: bool = False

    def __post_init__(self) -> None:
        # Whatever made the message (a bot's text quoted in it, an old stored record), what is
        # kept, shown and sent stays small and plain.
        object.__setattr__(self, "message", bounded(self.message, RECORD_MESSAGE_LIMIT))

    @property
    def fault(self) -> Fault:
        """The fault as the protocol tells it to a bot."""
        return Fault(FaultKind(self.kind), self.message)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "kind": str(self.kind), "message": self.message,
                "decision": self.decision, "collateral": self.collateral}
