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


def refuse_empty(target: str) -> None:
    """An empty name names no bot: as a path it would be the current folder, packed whole."""
    if not target.strip():
        from arena.errors import UnknownBot

        raise UnknownBot("no bot named: the name is empty; give a path to a script, a bot folder, or a command")


def command_words(target: str) -> list[str]:
    """A bot given as a command line, split as a shell would (``python3 'my bot.py' --fast``);
    an unclosed quote is an :class:`~arena.errors.UnknownBot` that says so, not a traceback."""
    import shlex

    try:
        return shlex.split(target)
    except ValueError as exc:
        from arena.errors import UnknownBot

        raise UnknownBot(f"no bot at {target!r}: {exc} in the command line") from None
