"""The referee's policies: limits, sandbox, disqualification, concurrency."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena import sandbox
from protocol.messages import (
    DEFAULT_MAX_MESSAGE_SIZE,
    Limits,
)

DEFAULT_FAULTS_TO_DISQUALIFY = 3  # faulty games in a row that put a bot out of the rest of a match


DEFAULT_CONCURRENT = 16  # games of a lineup in play at once unless configured (a tournament's ``concurrent``)


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """Policies of the referee; every number has a sane default and can be changed."""

    limits: Limits = field(default_factory=Limits)
    sandbox_mode: sandbox.Mode = sandbox.Mode.AUTO
    resources: sandbox.Resources = field(default_factory=sandbox.Resources)
    faults_to_disqualify: int = DEFAULT_FAULTS_TO_DISQUALIFY
    # Every decision is asked, one with a single legal action too, and Powder Keg polls every
    # active seat for a Veto (State.cover_hidden_skips): the referee's timing towards a bot then
    # depends on nothing another seat hides.  False applies single actions without asking and
    # polls only the holders of a Queen (cheaper: the benchmark measures what it costs).
    uniform_timing: bool = True
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    concurrent: int = DEFAULT_CONCURRENT  # games of one lineup in play at once, for bots that offer as many
