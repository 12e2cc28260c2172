"""The one rule for the names of bots and tournaments (tournament files, `arena bots add`)."""

from __future__ import annotations

import re

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
NAME_RULE = "1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"


def valid_name(name: object) -> bool:
    """Whether ``name`` may name a bot or a tournament (see :data:`NAME_RULE`)."""
    return isinstance(name, str) and NAME_RE.match(name) is not None
