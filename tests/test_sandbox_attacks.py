"""Issue 15's attacks on the sandbox, each by a hostile bot in the real sandbox: the attack fails,
the referee (here: the test process) is untouched, and no process or folder of the bot is left.

* colluding bots: two copies of one bot look for a channel between them (file locks on shared
  files, shared memory, sockets, signals, /proc, ...): none gets through;
* a bot that dies with its referee, however the referee is killed (``kill -9`` just as bots start);
* a bot that fills its tmpfs with empty files; one that reads /proc for host paths; one that
  moves itself to another CPU.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

from arena.sandbox import SandboxError
from sandboxing import needs_bwrap, start, stop_and_check, wait_for


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def shared_file(tmp_path: Path) -> Path:
    """A file every bot may read (as every sandbox reads /usr/bin/python3), last read long ago:
    reading it would move its access time, were it not read-only to the bots."""
    folder = tmp_path / "shared"
    folder.mkdir()
    path = folder / "book.txt"
    path.write_text("an opening book both bots ship with\n")
    day = 24 * 3600
    os.utime(path, (time.time() - 3 * day, time.time() - 2 * day))  # atime before mtime: relatime updates
    for p in (tmp_path, folder):
        p.chmod(0o755)
    path.chmod(0o644)
    return path


@needs_bwrap
def test_two_bots_find_no_channel_through_the_sandbox(tmp_path: Path, shared_file: Path) -> None:
    """The receiver watches every channel before the sender starts; the sender then holds each
    one open and pokes it for 3 s.  Every channel stays silent or is refused."""
    port = free_port()
    args = (str(shared_file), "3", str(port))
    receiver = start(tmp_path / "r", "strict", "sandbox_collude.py", "receive", *args, expose=[shared_file])
    sender = None
    try:
        wait_for(receiver, "armed")
        sender = start(tmp_path / "s", "strict", "sandbox_collude.py", "send", *args, expose=[shared_file])
        wait_for(sender, "sending")
        report = json.loads(wait_for(receiver, "}\n", timeout=20).strip().splitlines()[-1])
        observed = sorted(channel for channel, outcome in report.items() if outcome == "observed")
        assert observed == [], f"channels between the bots: {observed}; all: {report}"
        assert len(report) >= 25, report  # every probe ran
    finally:
        stop_and_check(receiver)
        if sender is not None:
            stop_and_check(sender)


@needs_bwrap
def test_a_named_pipe_in_an_exposed_folder_is_refused(tmp_path: Path) -> None:
    """Any number of processes may open a FIFO, on a read-only mount too: one shipped in a bot's
    folder (say, its node_modules) would let every copy of the bot talk to every other."""
    folder = tmp_path / "node_modules" / "left-pad"
    folder.mkdir(parents=True)
    (folder / "index.js").write_text("module.exports = 1\n")
    os.mkfifo(folder / "pipe")
    with pytest.raises(SandboxError, match=r"node_modules/left-pad/pipe is a named pipe"):
        start(tmp_path / "e", "strict", "sandbox_sleeper.py", expose=[tmp_path / "node_modules"])
    os.unlink(folder / "pipe")
    stop_and_check(start(tmp_path / "e", "strict", "sandbox_sleeper.py", expose=[tmp_path / "node_modules"]))
