"""Zoo: tries to open network connections (loopback and outside), reports on stderr, plays on."""
import socket
import sys

from protocol.sdk import run


def attempt(host: str, port: int) -> str:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return "CONNECTED"
    except OSError as exc:
        return f"blocked ({exc.__class__.__name__})"


PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 47913
print(f"zoo_network: loopback {attempt('127.0.0.1', PORT)}", file=sys.stderr, flush=True)
print(f"zoo_network: outside {attempt('1.1.1.1', 53)}", file=sys.stderr, flush=True)


def act(observation, legal):
    return legal[0]


sys.exit(run(act, name="network"))
