"""Text that came from a bot, made fit for a fault message: bounded, escaped, never a crash.

A fault message often quotes what the bot sent (a message type, a key, an action).  Such a value
can be anything JSON allows: 900 KB long, nested 1,000 deep (deeper than ``repr`` goes), an
integer of thousands of digits (which ``str`` refuses), or text with terminal control sequences.
The message is stored twice (the faults table and the game record), printed and sent back to
the bot, so it must stay small and plain whatever the value was:

* :func:`describe` shows a value in at most ``limit`` characters, walking it without recursion,
  and never raises;
* :func:`bounded` escapes a whole message (controls, and the invisible characters that reorder
  or hide text) and cuts it to :data:`MESSAGE_LIMIT` bytes of UTF-8.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

__all__ = ["MESSAGE_LIMIT", "VALUE_LIMIT", "bounded", "describe", "escape"]

MESSAGE_LIMIT = 400  # bytes of UTF-8 in a fault message
VALUE_LIMIT = 80  # characters of a value quoted inside one

# Every C0 and C1 control (newline and tab too: a fault message is one line), DEL, and the
# format characters that reorder or hide text (zero widths, bidi overrides and isolates, BOM).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_CUT = "..."


def _escape_one(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """``text`` with every control or invisible format character shown as an escape."""
    return _UNSAFE.sub(_escape_one, text)


def bounded(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` escaped and cut to at most ``limit`` bytes of UTF-8 (a cut ends in ``...``)."""
    if len(text) > 4 * limit:  # escaping can only lengthen it: cut first, cheaply
        text = text[: 4 * limit]
    text = escape(text)
    if len(text.encode("utf-8", "surrogatepass")) <= limit:
        return text
    keep = text[: limit - len(_CUT)]
    while len(keep.encode("utf-8", "surrogatepass")) > limit - len(_CUT):
        keep = keep[: max(0, len(keep) - max(1, (len(keep.encode("utf-8", "surrogatepass")) - limit) // 4))]
    return keep + _CUT


def _quote(value: str, room: int) -> str:
    """``value`` as a quoted string with its controls and invisible characters escaped (as
    :func:`escape` does); of a longer one, only its first ``room`` characters and no closing
    quote (the caller then cuts the text)."""
    text = escape(value[:room].replace("\\", "\\\\").replace('"', '\\"'))
    return f'"{text}"' if len(value) <= room else f'"{text}'


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        # str() of an int of more than 4,300 digits raises; a bot's number is a few digits.
        if value.bit_length() <= 64:
            return str(value)
        return f"(an integer of about {math.floor(value.bit_length() * math.log10(2)) + 1} digits)"
    if isinstance(value, float):
        return repr(value)
    return f"({type(value).__name__})"


def describe(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A bot's JSON value as compact JSON-like text of at most ``limit`` characters (a cut one
    ends in ``...``), its strings escaped as :func:`escape` does.

    It walks the value with an explicit stack (no recursion, so any depth is fine) and stops as
    soon as ``limit`` characters are written, so a huge value costs no more than a small one."""
    out: list[str] = []
    used = 0
    # What is still to write, last first: values of the bot's, and the punctuation between them.
    stack: list[Any] = [value]
    while stack and used <= limit:
        item = stack.pop()
        if isinstance(item, _Text):
            piece = item.text
        elif isinstance(item, str):
            piece = _quote(item, limit - used + 1)
        elif isinstance(item, dict):
            stack.append(_Text("}"))
            entries = list(itertools.islice(item.items(), limit))  # each costs a character at least
            for i in range(len(entries) - 1, -1, -1):
                key, val = entries[i]
                stack += [val, _Text(":"), key if isinstance(key, str) else str(key)]
                if i:
                    stack.append(_Text(","))
            piece = "{"
        elif isinstance(item, list):
            stack.append(_Text("]"))
            for i in range(min(len(item), limit) - 1, -1, -1):
                stack.append(item[i])
                if i:
                    stack.append(_Text(","))
            piece = "["
        else:
            piece = _scalar(item)
        out.append(piece)
        used += len(piece)
    text = "".join(out)
    return text if used <= limit else text[: limit - len(_CUT)] + _CUT


class _Text:
    """A fixed piece of punctuation on :func:`describe`'s stack (told apart from a bot's string)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
