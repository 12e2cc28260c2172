"""Fuzz bot: plays, but sends mutated messages, to show that nothing a bot sends can crash the referee.

Run as ``fuzz_bot.py ENDPOINT SEED RATE [hello]``: every answer is mutated with probability RATE
(a number from 0 to 1), from a generator seeded with SEED and the game; with ``hello`` its hello
is mutated too.  :func:`mutate` is also what ``benchmarks/fuzz_referee.py`` feeds the referee's
reading code in-process (this file is self-contained, as a sandboxed bot must be).

The mutations, of a valid message (a dict): nesting (a field, or the whole message, wrapped in
arrays and objects up to thousands deep), size (strings, keys and lists of up to about a MiB,
integers of thousands of digits, extreme floats), types (any field of any JSON type), and
encoding (invalid and overlong UTF-8, lone surrogates, NUL and control bytes, a BOM, JSON's
forbidden literals, truncation, and random byte flips, inserts and deletes).
"""
from __future__ import annotations

import json
import random
import sys
from typing import Any

sys.set_int_max_str_digits(0)  # integers of thousands of digits are among the mutations

SCALARS = [None, True, False, 0, -1, 1.5, 2**63, -(2**63) - 1, 1e308, -0.0, "", "x", "\x00", "\u202e", "\x1b[2J"]


def _value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value of modest size."""
    roll = rng.random()
    if depth > 3 or roll < 0.5:
        return rng.choice(SCALARS + [rng.randrange(-10**6, 10**6), "s" * rng.randrange(50)])
    if roll < 0.75:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["type", "id", "action", "k", "\x07", "é"]): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _deep(rng: random.Random, inner: Any, depth: int) -> Any:
    for _ in range(depth):
        inner = [inner] if rng.random() < 0.5 else {rng.choice(["a", "type", "id"]): inner}
    return inner


def _paths(msg: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(msg, dict):
        for key, value in msg.items():
            found += _paths(value, prefix + (key,))
    elif isinstance(msg, list):
        for i, value in enumerate(msg[:8]):
            found += _paths(value, prefix + (i,))
    return found


def _replace(msg: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(msg, dict):
        return {**msg, head: _replace(msg[head], rest, value)}
    copy = list(msg)
    copy[head] = _replace(copy[head], rest, value)
    return copy


def _big(rng: random.Random, sizes: tuple[int, ...], huge: int) -> int:
    """A size: one of ``sizes`` mostly, ``huge`` (near the size bound) one time in fifty."""
    return huge if rng.random() < 0.02 else rng.choice(sizes)


def _structural(rng: random.Random, msg: dict[str, Any]) -> Any:
    """A mutation of the message's structure (still JSON): nesting, size or types."""
    path = rng.choice(_paths(msg))
    kind = rng.randrange(9)
    if kind == 0:  # nesting, at a field or of the whole message
        return _replace(msg, path, _deep(rng, _value(rng), rng.choice([10, 300, 1000, 1023, 1030, 5000])))
    if kind == 1:  # a long string where anything was
        return _replace(msg, path, rng.choice(["x", "\u00e9", "\x1b", "\u202e", "\ud7ff"]) * _big(rng, (300, 5000), 900_000))
    if kind == 2:  # a long or strange key
        key = rng.choice(["k" * _big(rng, (300, 5000), 900_000), "\x1b]0;title\x07", "\u202eevil", "", "type\x00"])
        return {**msg, key: _value(rng)}
    if kind == 3:  # a field of another type
        return _replace(msg, path, _value(rng))
    if kind == 4:  # a field removed, or one added
        if isinstance(msg, dict) and msg and rng.random() < 0.5:
            drop = rng.choice(list(msg))
            return {k: v for k, v in msg.items() if k != drop}
        return {**msg, rng.choice(["extra", "type", "id", "actions"]): _value(rng)}
    if kind == 5:  # many elements
        return _replace(msg, path, [_value(rng) for _ in range(_big(rng, (10, 100), 10_000))] if rng.random() < 0.5
                        else [{}] * _big(rng, (100, 1000), 300_000))
    if kind == 6:  # a batch of answers, of all sorts
        return {"type": "actions", "actions": [rng.choice([msg, _value(rng), {"id": rng.randrange(100), "action": _value(rng)}])
                                               for _ in range(rng.randrange(0, 6))]}
    if kind == 7:  # not an object at all
        return _value(rng)
    return _replace(msg, path, rng.choice([10**rng.choice([20, 400, 5000]), 1e308, float("1e-320"), 2**64]))


_BYTES = [b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\x00", b"\x1b", b"\xef\xbb\xbf", b"\\", b'"', b"{", b"[", b"\x80"]


def _encoding(rng: random.Random, data: bytes) -> bytes:
    """A mutation of the message's bytes."""
    kind = rng.randrange(7)
    if kind == 0:  # truncated
        return data[: rng.randrange(len(data) + 1)]
    if kind == 1:  # bytes flipped
        out = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            if out:
                out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out)
    if kind == 2:  # bytes inserted: invalid UTF-8, control bytes, JSON punctuation
        pos = rng.randrange(len(data) + 1)
        return data[:pos] + rng.choice(_BYTES) * rng.randrange(1, 4) + data[pos:]
    if kind == 3:  # bytes deleted
        pos = rng.randrange(len(data) + 1)
        return data[:pos] + data[pos + rng.randrange(1, 5):]
    if kind == 4:  # JSON's forbidden literals and escapes
        return rng.choice([b'{"type": NaN}', b'{"type": Infinity}', b'{"type": "\\ud800"}', b'{"id": -Infinity}',
                           b'{"type": "action",}', b"// comment\n{}", b'{"type": "action" "id": 1}', b"\xef\xbb\xbf{}"])
    if kind == 5:  # a BOM or whitespace around it
        return rng.choice([b"\xef\xbb\xbf", b"  \n\t", b"\x00"]) + data + rng.choice([b"", b"\x00", b"\n", b"}"])
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))  # noise


def encode(value: Any, ascii_only: bool = True) -> bytes:
    """JSON of any depth (the json module recurses, and refuses what the referee's decoder must
    still be shown), lone surrogates kept as they are."""
    try:
        return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    except RecursionError:
        pass
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Punct):
            out.append(item.text)
        elif isinstance(item, dict):
            stack.append(_Punct("}"))
            for i, (key, val) in reversed(list(enumerate(item.items()))):
                stack += [val, _Punct(json.dumps(str(key), ensure_ascii=ascii_only) + ":")]
                if i:
                    stack.append(_Punct(","))
            out.append("{")
        elif isinstance(item, list):
            stack.append(_Punct("]"))
            for i in range(len(item) - 1, -1, -1):
                stack.append(item[i])
                if i:
                    stack.append(_Punct(","))
            out.append("[")
        else:
            out.append(json.dumps(item, ensure_ascii=ascii_only))
    return "".join(out).encode("utf-8", "surrogatepass")


class _Punct:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def mutate(rng: random.Random, msg: dict[str, Any]) -> bytes:
    """One mutated frame of the valid message ``msg``: its structure, its bytes, or both."""
    roll = rng.random()
    data = encode(msg if roll < 0.3 else _structural(rng, msg), ascii_only=rng.random() < 0.5)
    if roll < 0.6:
        data = _encoding(rng, data)
    return data


def main() -> int:
    import zmq

    endpoint, seed, rate = sys.argv[1], sys.argv[2], float(sys.argv[3])
    hello_too = len(sys.argv) > 4 and sys.argv[4] == "hello"
    rng = random.Random(f"{seed}:hello")
    sock = zmq.Context().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    hello = {"type": "hello", "protocol": 1, "name": "fuzz"}
    sock.send(mutate(rng, hello) if hello_too else json.dumps(hello).encode())
    while True:
        msg = json.loads(sock.recv())
        if msg["type"] in ("shutdown", "error"):
            return 0
        if msg["type"] == "game_start":
            rng = random.Random(f"{seed}:{msg['game_id']}")
        if msg["type"] != "request":
            continue
        answer = {"type": "action", "id": msg["id"], "action": msg["legal"][rng.randrange(len(msg["legal"]))]}
        sock.send(mutate(rng, answer) if rng.random() < rate else json.dumps(answer).encode())


if __name__ == "__main__":
    sys.exit(main())
