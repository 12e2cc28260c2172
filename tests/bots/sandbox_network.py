"""Try to reach the referee's loopback and the internet; print one JSON line of outcomes."""

import json
import socket
import sys


def attempt(host: str, port: int) -> str:
    try:
        with socket.create_connection((host, port), timeout=2):
            return "connected"
    except OSError as exc:
        return type(exc).__name__


results = {"loopback": attempt("127.0.0.1", int(sys.argv[1])), "internet": attempt("1.1.1.1", 80)}
print(json.dumps(results), file=sys.stderr, flush=True)
