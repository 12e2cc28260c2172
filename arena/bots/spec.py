"""How to run one bot program: its name, its command line and the files it may read."""

from __future__ import annotations

from dataclasses import dataclass

ENDPOINT = "{endpoint}"


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to run one bot: its display name, its command and the files it may read."""

    name: str
    command: tuple[str, ...]
    expose: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    def argv(self, endpoint: str) -> list[str]:
        """The command line: ``{endpoint}`` in the command is replaced, else the endpoint is appended."""
        if ENDPOINT in self.command:
            return [endpoint if word == ENDPOINT else word for word in self.command]
        return [*self.command, endpoint]
