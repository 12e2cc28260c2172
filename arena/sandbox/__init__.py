"""Start one untrusted bot program in a sandbox, and make sure none of it survives ``stop()``.

Layers, strongest first:

* **bubblewrap** (``bwrap``): new pid, network, ipc, uts and cgroup namespaces; a read-only view
  of the system, the Python installation, the ``arena``/``protocol`` packages and the paths the
  caller exposes; a private ``/tmp``; no network.  The only way out is the ``ipc://`` socket in
  ``endpoint_dir``.  Killing bwrap kills its pid namespace, and with it every process inside.
  A seccomp filter (:mod:`arena.sandbox.seccomp`) refuses new namespaces, tracing and the kernel's
  riskiest interfaces (x86-64; elsewhere a warning says it is missing).
* **a dedicated uid** (60001-60999, leased with ``flock`` so that it is unique on the machine)
  when the referee runs as root.  Root ignores ``RLIMIT_NPROC``, so only this makes the process
  limit bind; it also keeps bots out of each other's files and lets ``stop()`` find processes
  that left the process group (``setsid``, double fork) by scanning ``/proc``.
* **rlimits** (via ``prlimit``), a session of its own, a private working directory, a scrubbed
  environment, stdin/stdout on ``/dev/null`` and stderr captured into a bounded buffer.

``mode="none"`` (or ``"auto"`` without bwrap) keeps only the last two layers.  When the referee
is not root, bots run as the referee's user: ``RLIMIT_NPROC`` then counts *all* processes of that
user, and processes that escape the process group are not found by ``stop()``.  A root referee
whose bot cannot run under a uid of its own (no bwrap, and its interpreter or files under a folder
such as ``/root`` that other uids cannot enter) runs it as root, but where the machine offers
cgroups (:mod:`arena.sandbox.cgroups`) still in groups of its own: they bound it as a whole, and
``stop()`` kills every process they list, those that left the process group included.  Groups of
a referee that died are swept by :func:`reap_stale_groups` when the next session starts.

Bots die with the referee (``--die-with-parent`` / ``PR_SET_PDEATHSIG``).  That signal follows the
*thread* that started the bot, so call :func:`start_bot` from a thread that lives as long as the
match (e.g. a worker process's main thread).

The referee binds its socket *before* calling :func:`start_bot`: a socket bound by root has mode
0755, and ``connect()`` needs write permission, so ``start_bot`` hands the sockets already in
``endpoint_dir`` to the bot's uid (mode 0600), which keeps other bots out.  The directory itself
stays the referee's (mode 0711) and is mounted read-only: the bot can reach its socket but
not write files to the host's disk there.
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import importlib.util
import logging
import os
import re
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena.sandbox import seccomp
from arena.sandbox import cgroups
from arena.errors import ArenaError

__all__ = [
    "BotProcess",
    "Limits",
    "Mode",
    "SandboxError",
    "SandboxWarning",
    "sandbox_available",
    "start_bot",
]

log = logging.getLogger(__name__)

Mode = Literal["strict", "auto", "none"]

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
UID_RANGE = range(60001, 61000)
UID_LOCK_DIR = Path("/tmp/arena-uids")
_MB = 1024 * 1024
# How long stop() keeps killing before it gives up on a process (it never should).
_KILL_TIMEOUT = 5.0

# bwrap's --unshare-all also tries a user namespace; as root that succeeds and maps only uid 0,
# so switching to the bot's uid inside fails (EINVAL).  As root, list the namespaces instead.
_NAMESPACES_ROOT = [
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-uts",
    "--unshare-cgroup-try",
]
_SYSTEM_TOP = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/ssl/openssl.cnf",  # Node.js refuses to start without it
)


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of one bot process tree (one match)."""

    memory_mb: int = 1024  # RLIMIT_AS, per process
    cpu_seconds: int = 600  # RLIMIT_CPU, per process lifetime
    processes: int = 32  # RLIMIT_NPROC for the bot's uid; libzmq needs a few threads: keep >= 3
    file_size_mb: int = 16  # RLIMIT_FSIZE
    open_files: int = 256  # RLIMIT_NOFILE
    stderr_bytes: int = 64 * 1024  # tail of stderr kept in memory
    tmp_mb: int = 64  # size of the private /tmp and of the working directory, each (bwrap only)


class SandboxError(ArenaError):
    """The sandbox cannot be set up as asked; the message says what to do."""


class SandboxWarning(UserWarning):
    """A bot runs with less isolation than the sandbox can give."""


_warned: set[str] = set()
_warned_lock = threading.Lock()


def _warn_once(key: str, message: str) -> None:
    """Warn once per process: one line per missing layer, not one per bot."""
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    warnings.warn(message, SandboxWarning, stacklevel=3)


def _bwrap_namespaces() -> list[str]:
    return _NAMESPACES_ROOT if os.geteuid() == 0 else ["--unshare-all"]


@functools.cache
def sandbox_available() -> bool:
    """True if bwrap is installed and can create the namespaces we use (probed once)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = [bwrap, *_bwrap_namespaces(), "--die-with-parent", "--ro-bind", "/", "/"]
    probe += ["--proc", "/proc", "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    if done.returncode != 0:
        log.info("bwrap probe failed: %s", done.stderr.decode(errors="replace").strip())
    return done.returncode == 0


# --- /proc ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Proc:
    pid: int
    ppid: int
    uids: tuple[int, ...]  # real, effective, saved, filesystem
    zombie: bool
    comm: str


def _read_proc(pid: int) -> _Proc | None:
    """One process's identity, from status (not the /proc dir owner, which a bot can hide)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    try:
        return _Proc(
            pid=pid,
            ppid=int(fields["PPid"]),
            uids=tuple(int(u) for u in fields["Uid"].split()),
            zombie=fields["State"].startswith(("Z", "X")),
            comm=fields.get("Name", ""),
        )
    except (KeyError, ValueError):
        return None


def _all_procs() -> list[_Proc]:
    procs = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (p := _read_proc(int(entry))) is not None:
            procs.append(p)
    return procs


def _live_pids_of_uid(uid: int) -> list[int]:
    """Processes (not zombies: they are dead, only not yet reaped) with any uid equal to uid."""
    return [p.pid for p in _all_procs() if uid in p.uids and not p.zombie]


def _descendants(root: int) -> list[_Proc]:
    """root and everything below it (orphans reparented elsewhere are not found)."""
    procs = _all_procs()
    children: dict[int, list[_Proc]] = {}
    by_pid = {p.pid: p for p in procs}
    for p in procs:
        children.setdefault(p.ppid, []).append(p)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in by_pid:
            found.append(by_pid[pid])
        todo.extend(c.pid for c in children.get(pid, []))
    return found


def _is_alive(pid: int) -> bool:
    p = _read_proc(pid)
    return p is not None and not p.zombie


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def _kill_as_uid(uid: int, sig: int) -> bool:
    """kill(-1, sig) as the uid: the kernel signals every process of it, forks included."""
    kill = shutil.which("kill", path=SAFE_PATH)
    if kill is None:
        return False
    try:
        done = subprocess.run(
            [kill, f"-{int(sig)}", "--", "-1"],
            user=uid,
            group=uid,
            extra_groups=[],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        # E.g. the fork bomb fills the uid's process budget; the /proc scan still kills.
        return False
    # kill exits 1 when there was nothing to signal: that is fine too.
    return done.returncode in (0, 1)


def _kill_uid_until_gone(uid: int, timeout: float = _KILL_TIMEOUT) -> bool:
    """SIGKILL every process of uid until none is left; False if some survive the timeout."""
    deadline = time.monotonic() + timeout
    while live := _live_pids_of_uid(uid):
        if time.monotonic() > deadline:
            return False
        _kill_as_uid(uid, signal.SIGKILL)
        for pid in live:
            _kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    return True


def _kill_group_until_gone(group: cgroups.BotGroup, timeout: float = _KILL_TIMEOUT) -> bool:
    """SIGKILL every process in the bot's cgroups until none is left; False if some survive the
    timeout.  What a bot without a uid has instead of :func:`_kill_uid_until_gone`: a process
    that left the process group (``setsid``, double fork) is still listed in its group."""
    deadline = time.monotonic() + timeout
    while live := [pid for pid in group.pids() if _is_alive(pid)]:
        if time.monotonic() > deadline:
            return False
        for pid in live:
            _kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    return True


# --- uid leases -------------------------------------------------------------------------------


@dataclass(slots=True)
class _UidLease:
    """A uid held by this process through an flock on its lock file."""

    uid: int
    fd: int

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing drops the flock
            self.fd = -1


def _lock_dir() -> Path:
    """The root-owned lock directory; refuse one another user could have planted."""
    try:
        UID_LOCK_DIR.mkdir(mode=0o700)
    except FileExistsError:
        pass
    st = os.lstat(UID_LOCK_DIR)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0 or st.st_mode & 0o022:
        raise SandboxError(
            f"{UID_LOCK_DIR} must be a directory owned by root and not writable by others: "
            f"remove it and try again"
        )
    return UID_LOCK_DIR


def _try_lease(directory: Path, uid: int) -> _UidLease | None:
    """``uid``'s lease if no live process holds it, else None (its lock file is made if need be)."""
    fd = os.open(directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return _UidLease(uid, fd)


def _lease_uid() -> _UidLease:
    """Lease a uid no other running bot on this machine uses, even from another process."""
    directory = _lock_dir()
    for uid in UID_RANGE:
        lease = _try_lease(directory, uid)
        if lease is None:
            continue
        # A free uid with processes belongs to a referee that died: those are stale bots.
        if any(uid in p.uids for p in _all_procs()):
            if _live_pids_of_uid(uid):
                log.warning("killing stale processes of uid %d left by a dead referee", uid)
            if not _kill_uid_until_gone(uid, timeout=1.0) or any(
                uid in p.uids for p in _all_procs()
            ):
                # Unreaped zombies still count towards RLIMIT_NPROC: take another uid.
                lease.release()
                continue
        _remove_stale_workdirs(uid)
        return lease
    raise SandboxError(f"all bot uids {UID_RANGE.start}-{UID_RANGE.stop - 1} are in use")


def reap_orphans() -> list[int]:
    """Stop the bots of referees that died without stopping them (the uids whose lease nobody
    holds, yet which have processes); return those uids.

    A referee killed at the wrong moment (before bwrap could ask to die with it, or in the
    way of bubblewrap's own nested process) can leave a bot waiting on its socket for ever;
    leasing its uid again used to be the only thing that stopped it.  Only as root (bots have
    uids of their own only then); one scan of /proc when nothing is left over."""
    if os.geteuid() != 0:
        return []
    found = sorted({uid for p in _all_procs() if not p.zombie for uid in p.uids if uid in UID_RANGE})
    if not found:
        return []
    try:
        directory = _lock_dir()
    except SandboxError:
        return []  # leasing a uid will say what is wrong with the directory
    reaped = []
    for uid in found:
        try:
            lease = _try_lease(directory, uid)
        except OSError:
            continue
        if lease is None:
            continue  # leased: a live referee's bot
        try:
            log.warning("stopping processes of uid %d left by a referee that died", uid)
            _kill_uid_until_gone(uid, timeout=1.0)
            reaped.append(uid)
        finally:
            lease.release()
    return reaped


def reap_stale_groups() -> list[Path]:
    """Stop the bots without a uid of referees that died, and remove their cgroups; return the
    groups removed.

    A bot without a uid of its own (see the module's docstring) cannot be found by uid, and the
    signal that kills it with its referee does not reach a process that forked away from it; its
    cgroup, named with its referee's pid, still lists every such process.  Only as root (only
    root makes such groups); groups whose referee lives are left alone."""
    if os.geteuid() != 0:
        return []
    removed = []
    for group in cgroups.unowned_groups(alive=_is_alive):
        if group.pids():
            log.warning("stopping processes of %s left by a referee that died", group.paths[0].name)
        if not _kill_group_until_gone(group, timeout=1.0):
            log.error("processes of %s survive SIGKILL; keeping the group", group.paths[0].name)
            continue
        group.remove()
        removed += [path for path in group.paths if not path.exists()]
    return removed


_WORKDIR_OWNER = re.compile(r"-w([0-9]+)-[A-Za-z0-9_]+$")  # the pid in a workdir's name


def remove_stale_workdirs() -> list[Path]:
    """Remove the bot working folders whose maker has died (a referee or worker killed with
    ``kill -9``, or by the OOM killer, cannot clean up); return them.

    A folder's name carries the pid of the process that made it.  Only folders of this user's are
    judged: anyone can make folders in /tmp, and a live bot of another referee could plant one
    under its own uid and swap it for a link while it is removed.  (A bot uid's folders are
    removed when the uid is leased again, once none of its processes is left.)  Run after
    :func:`reap_orphans` and :func:`reap_stale_groups`, so that no stale bot still works in one."""
    me, euid = os.getpid(), os.geteuid()
    removed = []
    for path in Path(tempfile.gettempdir()).glob("arena-*-w*-*"):
        match = _WORKDIR_OWNER.search(path.name)
        if match is None or int(match.group(1)) == me:
            continue
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == euid and not _is_alive(int(match.group(1))):
            _remove_tree(path)
            removed.append(path)
    return removed


def _remove_stale_workdirs(uid: int) -> None:
    """Workdirs of a free uid were left by a referee that died before stop()."""
    for path in Path(tempfile.gettempdir()).glob("arena-*"):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == uid:
            _remove_tree(path)


# --- paths ------------------------------------------------------------------------------------


def _other_can_reach(path: Path, *, read: bool = True) -> bool:
    """True if an unrelated uid can walk to path and (if read) read it, or list it if a dir."""
    for candidate in {Path(os.path.abspath(path)), Path(os.path.realpath(path))}:
        for parent in candidate.parents:
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return False
        if read:
            mode = os.stat(candidate).st_mode
            need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
            if mode & need != need:
                return False
    return True


@functools.cache
def _package_dirs() -> tuple[Path, ...]:
    """Source directories of our packages, so Python bots can import protocol and arena."""
    dirs: list[Path] = []
    for name in ("arena", "protocol"):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            dirs.extend(Path(loc) for loc in spec.submodule_search_locations)
    return tuple(dict.fromkeys(dirs))


@functools.cache
def _python_path() -> str:
    """PYTHONPATH for a bot run by our interpreter's real path, which does not see the venv."""
    entries = [p for p in site.getsitepackages() if os.path.isdir(p)]
    entries += [str(d.parent) for d in _package_dirs()]
    return os.pathsep.join(dict.fromkeys(entries))


def _resolve_executable(program: str) -> Path:
    found = program if "/" in program else shutil.which(program, path=SAFE_PATH)
    if found is None or not os.access(found, os.X_OK):
        raise SandboxError(f"bot program not found or not executable: {program}")
    return Path(os.path.abspath(found))


def _same_file(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:40] or "bot"


# --- the bot process --------------------------------------------------------------------------


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
        limits: Limits,
        name: str,
        group: cgroups.BotGroup | None = None,
    ) -> None:
        self.pid = popen.pid
        self.group = group  # its cgroups, when the machine offers them (as root, with or without a uid)
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
        the process group are found by the bot's uid, or, for a bot without one, by its cgroup;
        only a bot with neither (a referee that is not root, or no cgroups) can leave them.
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
            # Without a uid, the cgroup also lists what left the process tree (double fork).
            found = {p.pid for p in procs} | (self.group.pids() if self.group is not None else set())
            targets = [pid for pid in sorted(found) if _pgid(pid) not in (self.pid, None)]
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
        elif self.group is not None:
            for pid in self.group.pids():  # what left the process group, as a bot without a uid
                _kill(pid, signal.SIGKILL)
        return [p.pid for p in procs]

    def _terminate(self, grace: float) -> None:
        if self.uid is not None:
            leftovers = bool(_live_pids_of_uid(self.uid))
        else:
            leftovers = self.group is not None and any(_is_alive(pid) for pid in self.group.pids())
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
            # Catches processes that left the process group (setsid, double fork).
            if not _kill_uid_until_gone(self.uid):
                log.error("processes of uid %d survive SIGKILL; keeping it leased", self.uid)
                self._lease = None  # leak the flock: never hand this uid to another bot
        else:
            # Without a uid, the cgroup (if any) lists processes that left the process group.
            if self.group is not None and not _kill_group_until_gone(self.group):
                log.error("processes of bot %s survive SIGKILL in %s", self.name, self.group.paths[0])
            deadline = time.monotonic() + _KILL_TIMEOUT
            while any(_is_alive(pid) for pid in tracked) and time.monotonic() < deadline:
                time.sleep(0.005)

    def _cleanup(self) -> None:
        self._stopped = True
        _running.discard(self)
        self._reader.join(timeout=2.0)
        if self._popen.stderr is not None and not self._reader.is_alive():
            self._popen.stderr.close()
        _remove_tree(self.workdir)
        # Empty once the bot's processes are gone; a uid kept leased (survivors) keeps its group,
        # and a group that still holds a process stays, for reap_stale_groups once we are gone.
        if self.group is not None and (self.uid is None or self._lease is not None):
            self.group.remove()
        if self._lease is not None:
            self._lease.release()


def _remove_tree(path: Path) -> None:
    """Delete a workdir, even one whose directories the bot made read-only (non-root referee)."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass
    except OSError:
        _force_remove(path)
    if not path.exists():
        _workdirs.pop(path, None)


def _force_remove(path: Path) -> None:
    """Delete a tree whose directories the bot made read-only: writable again first."""
    for root, dirs, _files in os.walk(path):
        for d in [root, *(os.path.join(root, d) for d in dirs)]:
            if not os.path.islink(d):  # never chmod what a bot's symlink points at
                try:
                    os.chmod(d, 0o700)
                except OSError:
                    pass
    shutil.rmtree(path, ignore_errors=True)
    if path.exists():
        log.warning("could not remove the bot working directory %s", path)


_running: weakref.WeakSet[BotProcess] = weakref.WeakSet()
# Every bot working folder made and not yet removed, with the pid of the process that made it:
# a clean-up cut short (a SIGINT that lands in it) would otherwise leave one behind for good.
_workdirs: dict[Path, int] = {}


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


# --- start ------------------------------------------------------------------------------------


def check_mode(mode: Mode) -> None:
    """Raise :class:`SandboxError` now if ``mode`` cannot be had on this machine: a tournament
    that asks for the strict sandbox where there is none should stop before it starts, not
    fail every match."""
    if mode == "strict":
        _choose_bwrap(mode)


def _choose_bwrap(mode: Mode) -> bool:
    if mode == "none":
        return False
    if mode not in ("strict", "auto"):
        raise SandboxError(f"unknown sandbox mode {mode!r}: use strict, auto or none")
    if sandbox_available():
        return True
    if mode == "strict":
        if shutil.which("bwrap") is None:
            raise SandboxError(
                "bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap), "
                "or do not ask for the strict sandbox (--sandbox strict, or mode = \"strict\" in a "
                "tournament file)"
            )
        raise SandboxError(
            "bubblewrap (bwrap) is installed but cannot create namespaces here (a container "
            "without them?): allow namespaces, or do not ask for the strict sandbox (--sandbox "
            "strict, or mode = \"strict\" in a tournament file)"
        )
    _warn_once(
        "no-bwrap",
        "bubblewrap (bwrap) is not available: bots run WITHOUT filesystem, network and pid "
        "isolation (they can read your files and open connections); only rlimits, a process "
        "group and, as root, a uid of their own remain. Install it: apt-get install bubblewrap",
    )
    return False


def _rlimit_command(limits: Limits) -> list[str]:
    prlimit = shutil.which("prlimit", path=SAFE_PATH)
    if prlimit is None:
        raise SandboxError("prlimit not found: install util-linux")
    return [
        prlimit,
        f"--as={limits.memory_mb * _MB}",
        f"--cpu={limits.cpu_seconds}",
        f"--nproc={limits.processes}",
        f"--fsize={limits.file_size_mb * _MB}",
        f"--nofile={limits.open_files}",
        "--",
    ]


def _batch_command() -> list[str]:
    """Run the bot under SCHED_BATCH: a waking bot then does not preempt the referee that is
    still sending it a burst of requests, so it reads the whole burst in one wake-up (what makes
    interleaved games cheap).  Only an optimisation: skipped where ``chrt`` is missing."""
    chrt = shutil.which("chrt", path=SAFE_PATH)
    return [] if chrt is None else [chrt, "--batch", "0"]


def _setpriv_command(uid: int | None, *, pdeathsig: bool) -> list[str]:
    if uid is None and not pdeathsig:
        return []
    setpriv = shutil.which("setpriv", path=SAFE_PATH)
    if setpriv is None:
        raise SandboxError("setpriv not found: install util-linux")
    cmd = [setpriv]
    if uid is not None:
        cmd += [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        cmd += ["--bounding-set=-all", "--inh-caps=-all"]
    if pdeathsig:
        cmd += ["--pdeathsig=KILL"]  # setpriv applies it after the uid change, which clears it
    return [*cmd, "--"]


def _bwrap_command(
    *, ro: list[Path], workdir: Path, env: dict[str, str], limits: Limits,
    seccomp_fd: int | None = None,
) -> list[str]:
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    cmd = [bwrap, *_bwrap_namespaces(), "--die-with-parent", "--new-session"]
    cmd += ["--ro-bind", "/usr", "/usr"]
    for top in _SYSTEM_TOP:
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    cmd += ["--perms", "0755", "--dir", "/etc"]  # bwrap would make it 0700: unreadable to the bot's uid
    for f in _ETC_FILES:
        parent = os.path.dirname(f)
        if parent != "/etc" and os.path.exists(f):
            cmd += ["--perms", "0755", "--dir", parent]  # bwrap would make it 0700
        cmd += ["--ro-bind-try", f, f]
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    # The bot's only writable space: /tmp and its working directory, each a tmpfs of tmp_mb, so
    # that no number of files can fill the host's disk.  What it sees of the host is read-only,
    # its socket's folder included (a socket needs no writable mount).
    cmd += ["--perms", "01777", "--size", str(limits.tmp_mb * _MB), "--tmpfs", "/tmp"]
    # Trees that hold the host's directories (parents inside them exist), and empty
    # directories made so far (their children do not).
    host_trees = [Path(d) for d in ("/usr", "/proc", "/dev", *_SYSTEM_TOP)]
    made = {Path("/"), Path("/tmp"), Path("/etc")}
    # Parents first, so a child bind lands on top of its parent's.
    for path in sorted(set(ro), key=lambda p: (len(p.parts), str(p))):
        for parent in reversed(path.parents):
            if parent in made or any(parent.is_relative_to(t) for t in host_trees):
                continue
            # bwrap copies the host's mode for parents it creates (/root is 0700): make them
            # 0755 so the bot's uid can walk to what it is allowed to see, and no further.
            cmd += ["--perms", "0755", "--dir", str(parent)]
            made.add(parent)
        cmd += ["--ro-bind", str(path), str(path)]
        if path.is_dir():
            host_trees.append(path)
    cmd += ["--perms", "0777", "--size", str(limits.tmp_mb * _MB), "--tmpfs", str(workdir)]
    cmd += ["--chdir", str(workdir), "--clearenv"]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    if seccomp_fd is not None:
        cmd += ["--seccomp", str(seccomp_fd)]
    return [*cmd, "--"]


def start_bot(
    argv: list[str],
    *,
    expose: list[Path],
    endpoint_dir: Path,
    mode: Mode = "auto",
    limits: Limits = Limits(),
    env: dict[str, str] | None = None,
    name: str = "bot",
) -> BotProcess:
    """Start argv sandboxed; it may read ``expose`` and use sockets in ``endpoint_dir``.

    Python bots: pass ``os.path.realpath(sys.executable)`` as argv[0] (the pyenv shim under
    /root is refused to other uids); they then get a PYTHONPATH with this environment's
    site-packages and the arena/protocol packages, unless ``env`` sets one.
    """
    if not argv:
        raise SandboxError("empty bot command")
    use_bwrap = _choose_bwrap(mode)
    executable = _resolve_executable(argv[0])
    expose = [Path(os.path.abspath(p)) for p in expose]
    for p in expose:
        if not p.exists():
            raise SandboxError(f"exposed path does not exist: {p}")
    endpoint_dir = Path(os.path.abspath(endpoint_dir))
    endpoint_dir.mkdir(parents=True, exist_ok=True)

    python_path = _python_path() if _same_file(executable, Path(sys.executable)) else None
    run_as_root = os.geteuid() == 0
    if run_as_root and not use_bwrap:
        # Outside bwrap the bot's uid must be able to reach its files on the real filesystem.
        needed = [executable, *expose]
        if python_path and not (env and "PYTHONPATH" in env):
            needed += [Path(p) for p in python_path.split(os.pathsep)]
        blocked = [p for p in needed if not _other_can_reach(p)]
        if not _other_can_reach(endpoint_dir, read=False):  # the bot must reach its socket there
            blocked.append(endpoint_dir)
        if blocked:
            _warn_once(
                "no-uid",
                f"{blocked[0]} cannot be reached by an unprivileged uid (a parent directory "
                "such as /root is mode 0700): bots run as root, so the process limit binds only "
                "through a cgroup (where the machine offers one) and bots can read each other's "
                "files. Use bwrap, or put the interpreter and bots in world-readable directories",
            )
            run_as_root = False
    lease = _lease_uid() if run_as_root else None
    uid = lease.uid if lease else None
    workdir: Path | None = None
    group: cgroups.BotGroup | None = None
    filter_fd: int | None = None
    try:
        workdir = Path(tempfile.mkdtemp(prefix=f"arena-{_safe_name(name)}-w{os.getpid()}-"))
        _workdirs[workdir] = os.getpid()
        _own(workdir, uid)
        # The folder stays the referee's, searchable but not writable by the bot: a bot that
        # could write there (a real folder on the host's disk, outside its tmpfs) could fill
        # the disk.  Its socket is the bot's own (mode 0600), which keeps other bots out.
        os.chmod(endpoint_dir, 0o711)
        for entry in endpoint_dir.iterdir():
            if entry.is_socket():
                _own(entry, uid, mode=0o600)

        bot_env = {
            "PATH": SAFE_PATH,
            "HOME": str(workdir),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        }
        if python_path:
            bot_env["PYTHONPATH"] = python_path
        bot_env |= env or {}

        join: list[str] = []
        if os.geteuid() == 0:  # with or without a uid of its own: cgroups are made only as root
            group = _bot_group(uid, limits)
            if group is not None:
                join = group.join_command()

        inner = _rlimit_command(limits) + _batch_command() + _setpriv_command(uid, pdeathsig=not use_bwrap)
        if use_bwrap:
            filter_fd = _seccomp_fd()
            ro = [Path(sys.base_prefix), Path(sys.prefix), *_package_dirs(), *expose]
            ro += [Path(os.path.realpath(executable))]
            prefix = _bwrap_command(
                ro=[p for p in ro if p.exists()] + [endpoint_dir],
                workdir=workdir,
                env=bot_env,
                limits=limits,
                seccomp_fd=filter_fd,
            )
            cwd = "/"
        else:
            prefix, cwd = [], str(workdir)
        popen = subprocess.Popen(
            [*join, *prefix, *inner, str(executable), *argv[1:]],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=bot_env,
            start_new_session=True,
            pass_fds=() if filter_fd is None else (filter_fd,),
        )
    except BaseException:
        if workdir is not None:
            _remove_tree(workdir)
        if group is not None:
            group.remove()
        if lease is not None:
            lease.release()
        raise
    finally:
        if filter_fd is not None:
            os.close(filter_fd)  # bwrap has its own copy, read before the bot runs
    return BotProcess(
        popen, lease=lease, sandboxed=use_bwrap, workdir=workdir, limits=limits, name=name, group=group
    )


def _seccomp_fd() -> int | None:
    """A descriptor with the seccomp filter for bwrap, or ``None`` (with a warning, once) where
    this machine has none."""
    code = seccomp.program()
    if code is None:
        _warn_once("no-seccomp", "no seccomp filter for this architecture: sandboxed bots may create user "
                                 "namespaces and use every system call the kernel allows them")
        return None
    return seccomp.memfd(code)


def _bot_group(uid: int | None, limits: Limits) -> cgroups.BotGroup | None:
    """The bot's cgroup (its memory and processes bounded as a whole), or None with a warning
    once when this machine does not offer one.

    A bot without a uid (``None``) gets new groups named after this referee: it runs as root,
    so they are what bounds its processes as a whole, and what lets ``stop()`` find those that
    left its process group."""
    why = cgroups.available()
    if why is None:
        try:
            if uid is None:
                return cgroups.make_unowned(limits.memory_mb * _MB, limits.processes)
            return cgroups.make(uid, limits.memory_mb * _MB, limits.processes)
        except OSError as exc:
            why = f"the kernel refused a cgroup ({exc})"
    with _warned_lock:  # once per process, in the log: the sandbox itself still holds
        if "cgroups" not in _warned:
            _warned.add("cgroups")
            log.warning("no cgroup per bot: %s; each bot process is bounded on its own (%d MB), "
                        "not the bot as a whole", why, limits.memory_mb)
    return None


def _own(path: Path, uid: int | None, mode: int = 0o700) -> None:
    """Give path to the bot's uid with the given mode, so no other bot can use it."""
    if uid is not None:
        os.chown(path, uid, uid, follow_symlinks=False)
    os.chmod(path, mode)
