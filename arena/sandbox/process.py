"""A running bot: its stderr, its exit, and a ``stop()`` after which none of it survives."""

from __future__ import annotations

import atexit
import logging
import os
import signal
import subprocess
import threading
import time
import weakref
from pathlib import Path

from arena.sandbox import cgroups, lifeline
from arena.sandbox.config import Resources
from arena.sandbox.procs import (
    _KILL_TIMEOUT,
    _descendants,
    _is_alive,
    _kill,
    _kill_as_uid,
    _kill_group_until_gone,
    _kill_uid_until_gone,
    _killpg,
    _live_pids_of_uid,
    _pgid,
)
from arena.sandbox.uids import _UidLease
from arena.sandbox.workdirs import _remove_tree, _workdirs

log = logging.getLogger("arena.sandbox")


class BotProcess:
    """A running sandboxed bot: poll it, read its stderr tail, stop it."""

    pid: int
    uid: int | None  # the bot's own uid, or None when it runs as the referee's user
    sandboxed: bool  # True under bwrap
    workdir: Path

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        *,
        lease: _UidLease | None,
        sandboxed: bool,
        workdir: Path,
        limits: Resources,
        name: str,
        group: cgroups.BotGroup | None = None,
        lifeline: int | None = None,
    ) -> None:
        self.pid = popen.pid
        self._lifeline = lifeline  # the write end of its lifeline: the bot dies if it closes unannounced
        self.group = group  # its cgroups, when the machine offers them (as root: named after its uid)
        self.uid = lease.uid if lease else None
        self.sandboxed = sandboxed
        self.workdir = workdir
        self.name = name
        self._popen = popen
        self._lease = lease
        self._cap = limits.stderr_bytes
        self._tail = bytearray()
        self._dropped = 0
        self._buf_lock = threading.Lock()
        self._stop_lock = threading.Lock()
        self._stopped = False
        self._reader = threading.Thread(
            target=self._read_stderr, name=f"sandbox-stderr-{name}", daemon=True
        )
        self._reader.start()
        self._owner = os.getpid()  # a forked worker inherits _running, but not the right to stop these
        _running.add(self)

    def __repr__(self) -> str:
        return f"BotProcess(name={self.name!r}, pid={self.pid}, uid={self.uid})"

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _read_stderr(self) -> None:
        """Keep only the tail, so a bot cannot fill the referee's memory by printing."""
        assert self._popen.stderr is not None
        fd = self._popen.stderr.fileno()
        while chunk := os.read(fd, 65536):
            with self._buf_lock:
                self._tail += chunk
                if (excess := len(self._tail) - self._cap) > 0:
                    del self._tail[:excess]
                    self._dropped += excess

    def take_stderr(self) -> str:
        """The stderr written since the last call (bounded), then forget it: one log per game."""
        if self._stopped:
            self._reader.join(timeout=1.0)  # the pipe is closed: collect the last bytes
        with self._buf_lock:
            data, dropped = bytes(self._tail), self._dropped
            self._tail.clear()
            self._dropped = 0
        text = data.decode("utf-8", errors="replace")
        return f"[{dropped} earlier bytes dropped]\n{text}" if dropped else text

    def poll(self) -> int | None:
        """Exit status if the bot exited, else None (under bwrap, death by signal N is 128+N)."""
        return self._popen.poll()

    def alive(self) -> bool:
        """True while the bot's main process runs."""
        return self._popen.poll() is None

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait for the bot's main process to exit; None on timeout."""
        try:
            return self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stderr_text(self) -> str:
        """The last ``stderr_bytes`` bytes of stderr, with a note of how many were dropped."""
        with self._buf_lock:
            data, dropped = bytes(self._tail), self._dropped
        text = data.decode(errors="replace")
        return f"[... {dropped} bytes of stderr dropped ...]\n{text}" if dropped else text

    def stop(self, grace: float = 0.5) -> int | None:
        """SIGTERM the whole bot, SIGKILL it after ``grace`` seconds; return its exit status.

        When this returns, no process of the bot exists (unless the kernel refused to kill one,
        which is logged and keeps the uid leased so no other bot gets it).  Processes that left
        the process group are found by the bot's uid (and its cgroup); only a bot without one (a
        referee that is not root, and no bwrap) can leave them.
        """
        with self._stop_lock:
            if not self._stopped:
                try:
                    self._terminate(grace)
                finally:
                    self._cleanup()
            return self._popen.returncode

    def _terminate_gently(self) -> None:
        """SIGTERM each bot process exactly once (a second one can cut its clean exit short)."""
        if self.uid is not None and _kill_as_uid(self.uid, signal.SIGTERM):
            return  # that reached every process of the bot, and nothing else
        procs = _descendants(self.pid)
        if self.sandboxed:
            # SIGTERM to bwrap itself would tear the namespace down at once: no grace.
            targets = [p.pid for p in procs if p.comm != "bwrap"]
        else:
            _killpg(self.pid, signal.SIGTERM)
            targets = [p.pid for p in procs if _pgid(p.pid) not in (self.pid, None)]
        for pid in targets:
            _kill(pid, signal.SIGTERM)

    def _kill_all(self) -> list[int]:
        """SIGKILL everything of the bot that can be found; return the pids found below it."""
        procs = _descendants(self.pid)
        # The bot (or bwrap) leads its own process group; its pid is not reused while the
        # group has members, so this also reaches children left after it exited.  Killing
        # bwrap kills its pid namespace, and with it every process inside.
        _killpg(self.pid, signal.SIGKILL)
        for p in procs:
            _kill(p.pid, signal.SIGKILL)
        if self.uid is not None:
            _kill_as_uid(self.uid, signal.SIGKILL)
        return [p.pid for p in procs]

    def _terminate(self, grace: float) -> None:
        leftovers = self.uid is not None and bool(_live_pids_of_uid(self.uid))
        running = self._popen.poll() is None or leftovers
        if running and grace > 0:
            self._terminate_gently()
            try:
                self._popen.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        tracked = self._kill_all()
        try:
            self._popen.wait(_KILL_TIMEOUT)
        except subprocess.TimeoutExpired:
            log.error("bot %s (pid %d) ignored SIGKILL", self.name, self.pid)
        if self.uid is not None:
            # Catches processes that left the process group (setsid, double fork); the cgroup
            # also lists what of the bot runs as root (its guard, a bwrap).
            if not _kill_uid_until_gone(self.uid) or (
                    self.group is not None and not _kill_group_until_gone(self.group)):
                log.error("processes of uid %d survive SIGKILL; keeping it leased", self.uid)
                self._lease = None  # leak the flock: never hand this uid to another bot
        else:
            deadline = time.monotonic() + _KILL_TIMEOUT
            while any(_is_alive(pid) for pid in tracked) and time.monotonic() < deadline:
                time.sleep(0.005)

    def _cleanup(self) -> None:
        if self._lifeline is not None:
            lifeline.all_clear(self._lifeline)  # its processes are gone: its guard may leave quietly
            self._lifeline = None
        self._stopped = True
        _running.discard(self)
        self._reader.join(timeout=2.0)
        if self._popen.stderr is not None and not self._reader.is_alive():
            self._popen.stderr.close()
        _remove_tree(self.workdir)
        # Empty once the bot's processes are gone; a uid kept leased (survivors) keeps its group,
        # for reap_stale_groups once we are gone.
        if self.group is not None and self._lease is not None:
            self.group.remove()
        if self._lease is not None:
            self._lease.release()


_running: weakref.WeakSet[BotProcess] = weakref.WeakSet()




@atexit.register
def stop_all() -> None:
    """Stop every bot this process started that still runs, and remove every working folder it
    made that is left: a referee that exits without stopping its bots, or whose clean-up was
    interrupted, leaves no workdir or process.  (A forked worker, which leaves without running
    atexit hooks, calls it itself.)"""
    me = os.getpid()
    for bot in list(_running):
        if bot._owner == me:
            bot.stop(grace=0)
    for path, owner in list(_workdirs.items()):
        if owner == me:
            _remove_tree(path)
