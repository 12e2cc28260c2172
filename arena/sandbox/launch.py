"""Starting a bot: the command line of its sandbox (bubblewrap, a uid of its own, rlimits, cgroups, seccomp)."""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
import re
import shutil
import site
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arena.sandbox import cgroups, seccomp
from arena.sandbox.config import (
    _MB,
    SAFE_PATH,
    Resources,
    Mode,
    SandboxError,
    _warn_once,
    _first_time,
)
from arena.sandbox.process import BotProcess
from arena.sandbox.uids import _UidLease, _lease_uid
from arena.sandbox.workdirs import _remove_tree, _workdirs

log = logging.getLogger("arena.sandbox")



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


_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


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


def _refuse_named_pipes(paths: list[Path]) -> None:
    """Refuse a FIFO in what a bot may read: any number of processes may open one, on a
    read-only mount too, so one shipped in a bot's folder (say, its ``node_modules``) would let
    every copy of that bot talk to every other.  (The system's own folders are not searched:
    they are the machine's, not a bot author's.)"""
    for top in paths:
        found = [top] if stat.S_ISFIFO(os.lstat(top).st_mode) else []
        if not found and top.is_dir() and not top.is_symlink():
            for folder, _dirs, files in os.walk(top):
                found += [Path(folder, f) for f in files if stat.S_ISFIFO(os.lstat(Path(folder, f)).st_mode)]
                if found:
                    break
        if found:
            raise SandboxError(f"{found[0]} is a named pipe (FIFO): bots that may read it could talk to each "
                               "other through it; remove it, or do not expose it to bots")


def _resolve_executable(program: str) -> Path:
    found = program if "/" in program else shutil.which(program, path=SAFE_PATH)
    if found is None or not os.access(found, os.X_OK):
        raise SandboxError(f"bot program not found or not executable: {program}")
    return Path(os.path.abspath(found))


def _same_file(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:40] or "bot"


def check_mode(mode: Mode) -> None:
    """Raise :class:`SandboxError` now if ``mode`` cannot be had on this machine: a tournament
    that asks for the strict sandbox where there is none should stop before it starts, not
    fail every match."""
    if Mode.parse(mode) == Mode.STRICT:
        _choose_bwrap(mode)


def _choose_bwrap(mode: Mode) -> bool:
    mode = Mode.parse(mode)
    if mode == Mode.NONE:
        return False
    if sandbox_available():
        return True
    if mode == Mode.STRICT:
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


def _rlimit_command(limits: Resources) -> list[str]:
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
    *, ro: list[Path], workdir: Path, env: dict[str, str], limits: Resources,
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
    # No /proc: its global files (free memory, load, every file lock on the machine, ...) are
    # channels between bots, and its mount table names the host's paths.  A /dev of a few
    # devices: no pseudo-terminals (their number is shared by every sandbox) and no /dev/shm.
    cmd += ["--perms", "0755", "--dir", "/dev"]
    for device in _DEVICES:
        cmd += ["--dev-bind", device, device]
    # The bot's only writable space: /tmp and its working directory, each a tmpfs of tmp_mb, so
    # that no number of files can fill the host's disk.  What it sees of the host is read-only,
    # its socket's folder included (a socket needs no writable mount).
    cmd += ["--perms", "01777", "--size", str(limits.tmp_mb * _MB), "--tmpfs", "/tmp"]
    # Trees that hold the host's directories (parents inside them exist), and empty
    # directories made so far (their children do not).
    host_trees = [Path(d) for d in ("/usr", *_SYSTEM_TOP)]
    made = {Path("/"), Path("/tmp"), Path("/etc"), Path("/dev")}
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


@dataclass(slots=True)
class _Taken:
    """What starting a bot took for it (a uid, a working folder, cgroups, descriptors): handed to
    its :class:`BotProcess` when it starts, given back when it does not."""

    lease: _UidLease | None = None
    workdir: Path | None = None
    group: cgroups.BotGroup | None = None
    fds: list[int] = field(default_factory=list)  # the child's copies are its own: ours close after Popen

    def close_fds(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()

    def release(self) -> None:
        """Give everything back: the bot did not start."""
        self.close_fds()
        if self.workdir is not None:
            _remove_tree(self.workdir)
        if self.group is not None:
            self.group.remove()
        if self.lease is not None:
            self.lease.release()


@dataclass(frozen=True, slots=True)
class LaunchPlan:
    """How one bot is started, layer by layer from the outside in: each part is a command that
    sets one layer up and then runs the rest (``exec``), so the bot ends up as the one process
    ``Popen`` started (or, under bwrap, its sandbox's)."""

    join: tuple[str, ...]  # joins the bot's cgroups
    sandbox: tuple[str, ...]  # bwrap and its arguments, up to ``--``; empty without it
    limits: tuple[str, ...]  # rlimits, scheduling class, uid (inside the sandbox)
    program: tuple[str, ...]  # the bot's own command line
    cwd: str
    env: dict[str, str]
    pass_fds: tuple[int, ...]
    sandboxed: bool  # under bwrap

    def command(self) -> list[str]:
        """The whole command line."""
        return [*self.join, *self.sandbox, *self.limits, *self.program]


def start_bot(
    argv: list[str],
    *,
    expose: list[Path],
    endpoint_dir: Path,
    mode: Mode = Mode.AUTO,
    limits: Resources = Resources(),
    env: dict[str, str] | None = None,
    name: str = "bot",
) -> BotProcess:
    """Start argv sandboxed; it may read ``expose`` and use sockets in ``endpoint_dir``.

    Python bots: pass ``os.path.realpath(sys.executable)`` as argv[0] (the pyenv shim under
    /root is refused to other uids); they then get a PYTHONPATH with this environment's
    site-packages and the arena/protocol packages, unless ``env`` sets one.
    """
    taken = _Taken()
    try:
        plan = plan_launch(argv, expose=expose, endpoint_dir=endpoint_dir, mode=mode, limits=limits,
                           env=env, name=name, taken=taken)
        popen = subprocess.Popen(
            plan.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=plan.cwd,
            env=plan.env,
            start_new_session=True,
            pass_fds=plan.pass_fds,
        )
    except BaseException:
        taken.release()
        raise
    finally:
        taken.close_fds()  # e.g. the seccomp filter: bwrap has its own copy, read before the bot runs
    assert taken.workdir is not None
    return BotProcess(popen, lease=taken.lease, sandboxed=plan.sandboxed, workdir=taken.workdir, limits=limits,
                      name=name, group=taken.group)


def plan_launch(
    argv: list[str],
    *,
    expose: list[Path],
    endpoint_dir: Path,
    mode: Mode,
    limits: Resources,
    env: dict[str, str] | None,
    name: str,
    taken: _Taken,
) -> LaunchPlan:
    """The plan that starts argv as :func:`start_bot` describes; what it takes for the bot (a
    uid, a folder, cgroups, descriptors) goes into ``taken``, to be given back if it fails."""
    if not argv:
        raise SandboxError("empty bot command")
    use_bwrap = _choose_bwrap(mode)
    executable = _resolve_executable(argv[0])
    expose = [Path(os.path.abspath(p)) for p in expose]
    for p in expose:
        if not p.exists():
            raise SandboxError(f"exposed path does not exist: {p}")
    if use_bwrap:
        _refuse_named_pipes(expose)
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
    taken.lease = _lease_uid() if run_as_root else None
    uid = taken.lease.uid if taken.lease else None

    workdir = Path(tempfile.mkdtemp(prefix=f"arena-{_safe_name(name)}-w{os.getpid()}-"))
    taken.workdir = workdir
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
        taken.group = _bot_group(uid, limits)
        if taken.group is not None:
            join = taken.group.join_command()

    inner = _rlimit_command(limits) + _batch_command() + _setpriv_command(uid, pdeathsig=not use_bwrap)
    program = (str(executable), *argv[1:])
    if not use_bwrap:
        return LaunchPlan(join=tuple(join), sandbox=(), limits=tuple(inner), program=program, cwd=str(workdir),
                          env=bot_env, pass_fds=(), sandboxed=False)
    filter_fd = _seccomp_fd()
    if filter_fd is not None:
        taken.fds.append(filter_fd)
    ro = [Path(sys.base_prefix), Path(sys.prefix), *_package_dirs(), *expose]
    ro += [Path(os.path.realpath(executable))]
    prefix = _bwrap_command(
        ro=[p for p in ro if p.exists()] + [endpoint_dir],
        workdir=workdir,
        env=bot_env,
        limits=limits,
        seccomp_fd=filter_fd,
    )
    return LaunchPlan(join=tuple(join), sandbox=tuple(prefix), limits=tuple(inner), program=program, cwd="/",
                      env=bot_env, pass_fds=tuple(taken.fds), sandboxed=True)


def _seccomp_fd() -> int | None:
    """A descriptor with the seccomp filter for bwrap, or ``None`` (with a warning, once) where
    this machine has none."""
    code = seccomp.program()
    if code is None:
        _warn_once("no-seccomp", "no seccomp filter for this architecture: sandboxed bots may create user "
                                 "namespaces and use every system call the kernel allows them")
        return None
    return seccomp.memfd(code)


def _bot_group(uid: int | None, limits: Resources) -> cgroups.BotGroup | None:
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
    if _first_time("cgroups"):  # once per process, in the log: the sandbox itself still holds
        log.warning("no cgroup per bot: %s; each bot process is bounded on its own (%d MB), "
                    "not the bot as a whole", why, limits.memory_mb)
    return None


def _own(path: Path, uid: int | None, mode: int = 0o700) -> None:
    """Give path to the bot's uid with the given mode, so no other bot can use it."""
    if uid is not None:
        os.chown(path, uid, uid, follow_symlinks=False)
    os.chmod(path, mode)
