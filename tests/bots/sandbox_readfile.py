"""Try to read each path given, and to modify our own script; print one JSON line of outcomes."""

import json
import sys


def read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.read(1)
        return "read"
    except OSError as exc:
        return type(exc).__name__


def append(path: str) -> str:
    try:
        with open(path, "ab"):
            return "written"
    except OSError as exc:
        return type(exc).__name__


results = {path: read(path) for path in sys.argv[1:]}
results["append-own-script"] = append(__file__)
print(json.dumps(results), file=sys.stderr, flush=True)
