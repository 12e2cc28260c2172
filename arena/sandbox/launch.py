"""Starting a bot: the plan of its sandbox's command line (bubblewrap, a uid of its own, rlimits,
cgroups, seccomp, its mounts, its guard), then one ``Popen``."""

from __future__ import annotations

import functools
import importlib.util
import json
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

from arena.sandbox import cgroups, lifeline, mountns, seccomp
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
        "bubblewrap (bwrap) is not available: bots run WITHOUT filesystem and pid isolation (they "
        "can read your files"
        + (", and open connections" if os.geteuid() != 0 else "")
        + "); only rlimits, a process group and, "
        + ("as root, a uid of their own and private temporary folders" if os.geteuid() == 0 else
           "as a root referee, a uid of their own")
        + " remain. Install it: apt-get install bubblewrap",
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
    seccomp_fd: int | None = None, tmp_source: Path | None = None, home_source: Path | None = None,
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
    if tmp_source is None:
        cmd += ["--perms", "01777", "--size", str(limits.tmp_mb * _MB), "--tmpfs", "/tmp"]
    else:
        cmd += ["--bind", str(tmp_source), "/tmp"]  # made with a bound on its files too
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
    if home_source is None:
        cmd += ["--perms", "0777", "--size", str(limits.tmp_mb * _MB), "--tmpfs", str(workdir)]
    else:
        cmd += ["--bind", str(home_source), str(workdir)]
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
    lifeline: int | None = None  # the write end of the bot's lifeline (see arena.sandbox.lifeline)
    fds: list[int] = field(default_factory=list)  # the child's copies are its own: ours close after Popen

    def close_fds(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()

    def release(self) -> None:
        """Give everything back: the bot did not start."""
        self.close_fds()
        if self.lifeline is not None:
            os.close(self.lifeline)
            self.lifeline = None
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
    mounts: tuple[str, ...]  # a mount namespace of the bot's own, its tmpfs made there (as root)
    sandbox: tuple[str, ...]  # bwrap and its arguments, up to ``--``; empty without it
    limits: tuple[str, ...]  # rlimits, scheduling class, uid
    guard: tuple[str, ...]  # kills the bot if the referee dies (arena.sandbox.lifeline)
    program: tuple[str, ...]  # the bot's own command line
    cwd: str
    env: dict[str, str]
    stdin: int  # the lifeline's read end, for the guard
    pass_fds: tuple[int, ...]
    sandboxed: bool  # under bwrap

    def command(self) -> list[str]:
        """The whole command line."""
        return [*self.join, *self.mounts, *self.sandbox, *self.limits, *self.guard, *self.program]


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
            stdin=plan.stdin,
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
                      name=name, group=taken.group, lifeline=taken.lifeline)


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
    uid, a folder, cgroups, descriptors) goes into ``taken``, to be given back if it fails.

    Named steps, in the order they must run: check the request, take a uid, make the bot's
    folders, then build each layer of the command line from the outside in."""
    bot = _checked_request(argv, expose, endpoint_dir, mode, env)
    taken.lease = _lease_uid() if bot.root else None
    uid = taken.lease.uid if taken.lease else None
    workdir = _make_workdir(name, uid if bot.host_folder_is_bots else None, taken)
    _open_endpoint_dir(bot.endpoint_dir, uid)
    bot_env = _bot_env(workdir, bot.python_path, env)
    if bot.root:  # cgroups are made only as root
        taken.group = _bot_group(uid, limits)
    join = taken.group.join_command() if taken.group is not None else []
    read_end, taken.lifeline = lifeline.open_lifeline()
    taken.fds.append(read_end)
    guard = lifeline.guard_command(uid=uid, in_pid_namespace=bot.use_bwrap)
    inner = _rlimit_command(limits) + _batch_command() + _setpriv_command(uid, pdeathsig=not bot.use_bwrap)
    program = (str(bot.executable), *argv[1:])
    if not bot.use_bwrap:
        mounts = _private_mounts_command(bot, workdir, uid, limits) if bot.private_mounts else []
        return LaunchPlan(join=tuple(join), mounts=tuple(mounts), sandbox=(), guard=tuple(guard),
                          limits=tuple(inner), program=program, cwd=str(workdir), env=bot_env,
                          stdin=read_end, pass_fds=(), sandboxed=False)
    mounts, sandbox, pass_fds = _bwrap_layers(bot, workdir, uid, limits, bot_env, taken)
    return LaunchPlan(join=tuple(join), mounts=tuple(mounts), sandbox=tuple(sandbox), guard=tuple(guard),
                      limits=tuple(inner), program=program, cwd="/", env=bot_env, stdin=read_end,
                      pass_fds=pass_fds, sandboxed=True)


@dataclass(frozen=True, slots=True)
class _Request:
    """A bot's launch request, checked: what the later steps of :func:`plan_launch` decide by."""

    executable: Path
    expose: list[Path]  # absolute
    endpoint_dir: Path  # absolute, and made
    use_bwrap: bool
    root: bool  # a root referee: the bot gets a uid of its own
    private_mounts: bool  # without bwrap, as root: a mount namespace of the bot's own (arena.sandbox.mountns)
    python_path: str | None  # the PYTHONPATH the bot gets, if it is run by our interpreter

    @property
    def host_folder_is_bots(self) -> bool:
        """Where the bot's working folder is a tmpfs of its own (bwrap, or the private mounts),
        the one on the host's disk is only where it is mounted, and stays the referee's: swept
        by the pid in its name if the referee is killed.  Else it is the bot's own."""
        return not self.use_bwrap and not self.private_mounts


def _checked_request(argv: list[str], expose: list[Path], endpoint_dir: Path, mode: Mode,
                     env: dict[str, str] | None) -> _Request:
    """Refuse (:class:`SandboxError`) a request that cannot be started as asked, before anything is taken."""
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
    if env and "PYTHONPATH" in env:
        python_path = None
    root = os.geteuid() == 0
    # Without bwrap a root referee still runs the bot under a uid of its own: in a mount
    # namespace where its files are reachable (arena.sandbox.mountns), else only where they are.
    private_mounts = root and not use_bwrap and _mounts_work("namespace")
    if root and not use_bwrap and not private_mounts:
        _refuse_unreachable([executable, *expose, *(Path(p) for p in (python_path or "").split(os.pathsep) if p)],
                            endpoint_dir)
    return _Request(executable=executable, expose=expose, endpoint_dir=endpoint_dir, use_bwrap=use_bwrap,
                    root=root, private_mounts=private_mounts, python_path=python_path)


def _refuse_unreachable(needed: list[Path], endpoint_dir: Path) -> None:
    """A bot with neither bwrap nor private mounts sees the host's files as its uid may: refuse
    one it would need but cannot reach."""
    blocked = [p for p in needed if not _other_can_reach(p)]
    if not _other_can_reach(endpoint_dir, read=False):  # the bot must reach its socket there
        blocked.append(endpoint_dir)
    if blocked:
        raise SandboxError(
            f"{blocked[0]} cannot be reached by an unprivileged uid (a folder on its way, such as /root, "
            "is closed to other users) and bots never run as root: install bubblewrap (apt-get install "
            "bubblewrap), or put the interpreter and the bots in folders other users can enter")


def _make_workdir(name: str, owner: int | None, taken: _Taken) -> Path:
    """The bot's working folder on the host, registered to be swept with this process; given to
    ``owner`` (the bot's uid, where the folder is the bot's own: see ``host_folder_is_bots``)."""
    # Into ``taken`` at once, so that it is removed if anything after this fails (a Ctrl-C too).
    workdir = taken.workdir = Path(tempfile.mkdtemp(prefix=f"arena-{_safe_name(name)}-w{os.getpid()}-"))
    _workdirs[workdir] = os.getpid()
    _own(workdir, owner)
    return workdir


def _open_endpoint_dir(endpoint_dir: Path, uid: int | None) -> None:
    """The folder stays the referee's, searchable but not writable by the bot: a bot that
    could write there (a real folder on the host's disk, outside its tmpfs) could fill
    the disk.  Its socket is the bot's own (mode 0600), which keeps other bots out."""
    os.chmod(endpoint_dir, 0o711)
    for entry in endpoint_dir.iterdir():
        if entry.is_socket():
            _own(entry, uid, mode=0o600)


def _bot_env(workdir: Path, python_path: str | None, env: dict[str, str] | None) -> dict[str, str]:
    """The bot's whole environment: a few safe defaults, then what its spec sets."""
    bot_env = {
        "PATH": SAFE_PATH,
        "HOME": str(workdir),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }
    if python_path:
        bot_env["PYTHONPATH"] = python_path
    return bot_env | (env or {})


def _private_mounts_command(bot: _Request, workdir: Path, uid: int | None, limits: Resources) -> list[str]:
    """The prefix that gives a bot without bwrap a mount namespace of its own (as root): only
    what it needs of the host, and tmpfs for its /tmp and working folder."""
    assert uid is not None
    python_path = bot.python_path or ""
    needed = [str(bot.executable), _interpreter_tree(bot.executable), *map(str, bot.expose),
              bot.endpoint_dir.as_posix()]
    needed += [p for p in python_path.split(os.pathsep) if p and os.path.exists(p)]
    ops = mountns.plan(needed, home=str(workdir), tmp_options=_tmpfs_options(limits, 0o1777),
                       home_options=_tmpfs_options(limits, 0o700, uid), blocked=_first_blocked)
    return [os.path.realpath(sys.executable), "-I", "-S", mountns.__file__, json.dumps(ops), "--"]


def _bwrap_layers(bot: _Request, workdir: Path, uid: int | None, limits: Resources, bot_env: dict[str, str],
                  taken: _Taken) -> tuple[list[str], list[str], tuple[int, ...]]:
    """Under bwrap: the mounts prefix (the bot's tmpfs, as root), bwrap's own command line, and
    the descriptors it must be passed (its seccomp filter, which goes into ``taken``)."""
    filter_fd = _seccomp_fd()
    if filter_fd is not None:
        taken.fds.append(filter_fd)
    tmpfs = _bot_tmpfs(workdir, uid, limits, root=bot.root)
    ro = [Path(sys.base_prefix), Path(sys.prefix), *_package_dirs(), *bot.expose]
    ro += [Path(os.path.realpath(bot.executable))]
    sandbox = _bwrap_command(
        ro=[p for p in ro if p.exists()] + [bot.endpoint_dir],
        workdir=workdir,
        env=bot_env,
        limits=limits,
        seccomp_fd=filter_fd,
        tmp_source=tmpfs[0][1] if tmpfs else None,
        home_source=tmpfs[1][1] if tmpfs else None,
    )
    return _tmpfs_command(tmpfs), sandbox, () if filter_fd is None else (filter_fd,)


def _bot_tmpfs(workdir: Path, uid: int | None, limits: Resources, *, root: bool) -> list[tuple[str, Path]]:
    """As root, the bot's /tmp and working folder under bwrap, as (options, folder): made with a
    bound on their files (bwrap can bound only their size) in a mount namespace of their own,
    and bwrap binds them in.  Else none, and bwrap makes them."""
    if root and _mounts_work("tmpfs"):
        tmpfs = [(_tmpfs_options(limits, 0o1777), workdir / "tmp"), (_tmpfs_options(limits, 0o700, uid), workdir / "home")]
        for _options, folder in tmpfs:
            folder.mkdir(mode=0o700)
        return tmpfs
    if _first_time("no-inode-bound"):
        log.warning("bots' tmpfs have no bound on their number of files (only a root referee can set one): "
                    "a bot may hold kernel memory with empty files up to its memory limit")
    return []


# $1: mount(8).  Mounts each tmpfs given (options, then folder) in the mount namespace that
# unshare made, then runs the command after "--".
_TMPFS = ('mount=$1; shift; while [ "$1" != -- ]; do "$mount" -n -c -t tmpfs -o "$1" arena "$2" || exit 126; '
          'shift 2; done; shift; exec "$@"')


def _tmpfs_command(mounts: list[tuple[str, Path]]) -> list[str]:
    """A prefix that runs the command after it in a mount namespace of its own, with these tmpfs
    mounted there; gone with the bot's last process."""
    if not mounts:
        return []
    unshare, mount = (shutil.which(tool, path=SAFE_PATH + ":/usr/sbin:/sbin") for tool in ("unshare", "mount"))
    assert unshare is not None and mount is not None  # (_mounts_work found them)
    pairs = [arg for options, folder in mounts for arg in (options, str(folder))]
    return [unshare, "--mount", "--propagation", "private", "--", "/bin/sh", "-c", _TMPFS, "arena-tmpfs", mount, *pairs,
            "--"]


def _tmpfs_options(limits: Resources, mode: int, uid: int | None = None) -> str:
    """A tmpfs of ``tmp_mb`` and ``tmp_files``, mode ``mode``, owned by ``uid`` if given."""
    options = f"size={limits.tmp_mb * _MB},nr_inodes={limits.tmp_files},mode={mode:o}"
    return options if uid is None else f"{options},uid={uid},gid={uid}"


@functools.cache
def _mounts_work(kind: str) -> bool:
    """True if this machine lets a root referee make the bot's mounts: ``"tmpfs"`` (unshare and
    mount, for bwrap's /tmp and working folder) or ``"namespace"`` (the private mounts of a bot
    without bwrap, arena.sandbox.mountns).  Probed once; a container without the right to make
    namespaces says no."""
    folder = tempfile.mkdtemp(prefix="arena-probe-")
    try:
        if kind == "tmpfs":
            command = _tmpfs_command([("size=1m,nr_inodes=16", Path(folder))]) if all(
                shutil.which(tool, path=SAFE_PATH + ":/usr/sbin:/sbin") for tool in ("unshare", "mount")) else []
            if not command:
                return False
            command.append("/bin/true")
        else:
            ops = [["tmpfs", folder, "size=1m,nr_inodes=16"]]
            command = [os.path.realpath(sys.executable), "-I", "-S", mountns.__file__, json.dumps(ops), "--", "/bin/true"]
        done = subprocess.run(command, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        os.rmdir(folder)
    if done.returncode != 0:
        log.info("a bot's %s mounts cannot be made here: %s", kind, done.stderr.decode(errors="replace").strip())
    return done.returncode == 0


def _interpreter_tree(executable: Path) -> str:
    """What a bot's program needs of its own folder: the whole installation of this Python (its
    standard library and libpython sit beside it), else the program's file."""
    if _same_file(executable, Path(sys.executable)):
        return os.path.realpath(sys.base_prefix)
    return os.path.realpath(executable)


def _first_blocked(path: str) -> str | None:
    """The topmost folder on the way to path that other users cannot enter (``/root``), if any."""
    for parent in reversed(Path(os.path.abspath(path)).parents):
        if not os.stat(parent).st_mode & stat.S_IXOTH:
            return str(parent)
    return None


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
    once when this machine does not offer one (or the bot has no uid to name it by: a referee
    that is not root makes none)."""
    why = cgroups.available()
    if why is None and uid is not None:
        try:
            # The CPUs of the thread that starts it: a worker's one CPU, when it keeps to one.
            return cgroups.make(uid, limits.memory_mb * _MB, limits.processes, cpus=os.sched_getaffinity(0))
        except OSError as exc:
            why = f"the kernel refused a cgroup ({exc})"
    if _first_time("cgroups"):  # once per process, in the log: the sandbox itself still holds
        log.warning("no cgroup per bot: %s; each bot process is bounded on its own (%d MB), "
                    "not the bot as a whole", why or "the bot has no uid of its own", limits.memory_mb)
    return None


def _own(path: Path, uid: int | None, mode: int = 0o700) -> None:
    """Give path to the bot's uid with the given mode, so no other bot can use it."""
    if uid is not None:
        os.chown(path, uid, uid, follow_symlinks=False)
    os.chmod(path, mode)
