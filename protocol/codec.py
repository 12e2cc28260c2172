"""JSON encoding of protocol messages: one UTF-8 JSON object per ZeroMQ frame.

orjson is used when it is importable because it roughly halves the cost of a round trip
(~130 µs against ~225 µs with the standard library over ipc).  Both back ends behave the same
on the wire: compact UTF-8 output, strict UTF-8 input, and no ``NaN``/``Infinity`` (which are
not JSON), so a bot never sees a difference.  Every decoding failure is a :class:`ValueError`,
which the referee records as a ``malformed`` fault.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["BACKEND", "dumps", "loads"]

try:
    import orjson
except ImportError:  # pragma: no cover - exercised by the fallback test with orjson hidden
    orjson = None  # type: ignore[assignment]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_decoder = json.JSONDecoder(parse_constant=_reject_constant)


def _std_dumps(obj: Any) -> bytes:
    return _encoder.encode(obj).encode("utf-8")


def _std_loads(data: bytes | bytearray | memoryview | str) -> Any:
    text = data if isinstance(data, str) else bytes(data).decode("utf-8")
    try:
        return _decoder.decode(text)
    except RecursionError:
        # Absurdly deep nesting: a bad message, not a referee crash.
        raise ValueError("JSON nested too deeply") from None


if orjson is not None:
    BACKEND = "orjson"

    def dumps(obj: Any) -> bytes:
        """Encode one message as compact UTF-8 JSON."""
        return orjson.dumps(obj)

    def loads(data: bytes | bytearray | memoryview | str) -> Any:
        """Decode one message; raises ValueError on anything that is not strict UTF-8 JSON."""
        return orjson.loads(data)

else:  # pragma: no cover - see above
    BACKEND = "json"
    dumps = _std_dumps
    loads = _std_loads
