"""``arena serve`` in a process of its own, for the scripts that look at its pages from outside
(the web benchmark, the README's screenshots): a free port, waiting until it answers, and its stop."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

__all__ = ["free_port", "served"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on just now."""
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def served(db: Path, *, ready: str = "/", quiet: bool = False, timeout_s: float = 60) -> Iterator[str]:
    """``arena serve --db DB`` on a free port until the block ends; yields its base URL once
    ``ready`` (a path) answers.  ``quiet`` drops its log.  Raises RuntimeError if it ends first
    or does not answer within ``timeout_s``."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--db", str(db), "--port", str(port)],
                              stderr=subprocess.DEVNULL if quiet else None)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"arena serve --db {db} ended with status {server.returncode}")
            try:
                urllib.request.urlopen(base + ready, timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"arena serve --db {db} did not answer {ready} within {timeout_s:.0f} s") from None
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # busy rating a scope: uvicorn waits for the request to end
            server.kill()
            server.wait()
