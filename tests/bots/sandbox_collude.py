"""Two copies of this bot try to talk to each other through everything a sandbox might share.

``receive SHARED SECONDS PORT`` arms a watch on every channel, says ``armed``, then looks for the
sender for SECONDS and reports one JSON line on stderr: ``{channel: outcome}``, where the outcome
is ``"observed"`` (the sender got through), ``"silent"`` or ``"refused (ERRNO)"``.
``send SHARED SECONDS PORT`` opens every channel it can, holds it, and keeps poking it (reading
the shared file, broadcasting a signal) for SECONDS; it says ``sending`` and what it was refused.
SHARED is a file both bots can read, as every sandbox reads /usr/bin/python3 (the futex probe
uses it rather than the interpreter, which bots of other tests map as well).

(Two copies of one bot sharing their hands through ``flock`` on a shared read-only file got 16
bits a turn across before issue 15.)  Run only where bots have uids of their own or a pid
namespace: the sender broadcasts SIGUSR1 with ``kill(-1)``.
"""

import ctypes
import errno
import fcntl
import json
import os
import signal
import socket
import struct
import sys
import time

ROLE, SHARED, SECONDS, PORT = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
PYTHON = os.path.realpath(sys.executable)
NAME = "arena-collude"
KEY = 0xA12E15

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
FUTEX_WAIT, FUTEX_WAKE = 0, 1  # without FUTEX_PRIVATE_FLAG: keyed by the file's inode, in every process


def map_shared(path: str) -> int:
    """The address of the first page of path, mapped shared and read-only."""
    fd = os.open(path, os.O_RDONLY)
    address = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
    os.close(fd)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    return address


def failure(exc: BaseException | int) -> str:
    code = exc if isinstance(exc, int) else getattr(exc, "errno", None)
    return f"refused ({errno.errorcode.get(code, code)})" if code else f"refused ({exc!r})"


def c_failure() -> str:
    return failure(ctypes.get_errno())


def lock_struct(kind: int) -> bytes:
    return struct.pack("@hhqqi4x", kind, os.SEEK_SET, 0, 0, 0)  # struct flock: the whole file


# --- the sender: open every channel and hold it ----------------------------------------------


def send() -> None:
    held, refused = [], {}

    def attempt(channel, action):
        try:
            held.append(action())
        except OSError as exc:
            refused[channel] = failure(exc)

    def flock(path):
        fd = os.open(path, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    def posix_lock(path, command):
        fd = os.open(path, os.O_RDONLY)
        fcntl.fcntl(fd, command, lock_struct(fcntl.F_RDLCK))
        return fd

    def c_call(result):
        if result < 0:
            raise OSError(ctypes.get_errno(), "")
        return result

    def listen(family, address):
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.bind(address)
        sock.listen()
        sock.setblocking(False)
        return sock

    def make(path):
        with open(path, "w") as fh:
            fh.write("here")
        return path

    attempt("flock", lambda: flock(SHARED))
    attempt("flock_system_file", lambda: flock(PYTHON))
    attempt("posix_lock", lambda: posix_lock(SHARED, fcntl.F_SETLK))
    attempt("ofd_lock", lambda: posix_lock(PYTHON, 37))  # F_OFD_SETLK
    attempt("sysv_shm", lambda: c_call(libc.shmget(KEY, 4096, 0o1000 | 0o666)))  # IPC_CREAT
    attempt("sysv_msg", lambda: c_call(libc.msgget(KEY, 0o1000 | 0o666)))
    libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    attempt("posix_mq", lambda: c_call(libc.mq_open(f"/{NAME}".encode(), os.O_CREAT | os.O_RDWR, 0o666, None)))
    for folder in ("/dev/shm", "/tmp", "/var/tmp", "/run/lock"):
        attempt(f"file_in {folder}", lambda folder=folder: make(os.path.join(folder, NAME)))
    attempt("abstract_socket", lambda: listen(socket.AF_UNIX, f"\0{NAME}"))
    attempt("tcp_loopback", lambda: listen(socket.AF_INET, ("127.0.0.1", PORT)))
    attempt("vsock", lambda: listen(socket.AF_VSOCK, (socket.VMADDR_CID_ANY, PORT)))
    # Key 3 of KEY_SPEC_USER_KEYRING (-4): found by a request_key of the same description.
    attempt("keyring", lambda: c_call(libc.syscall(248, b"user", NAME.encode(), b"x", 1, -4)))
    futex = map_shared(SHARED)
    print("sending", json.dumps(refused), file=sys.stderr, flush=True)
    # Kept open: closing any descriptor of a file drops the process's POSIX locks on it.
    readers = [os.open(path, os.O_RDONLY) for path in (SHARED, PYTHON)]
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        for fd in readers:  # reads, for inotify, dnotify and atime
            os.pread(fd, 1, 0)
        if libc.syscall(202, ctypes.c_void_p(futex), FUTEX_WAKE, 1 << 30, None, None, 0) < 0:
            refused["shared_futex"] = c_failure()
        try:
            os.kill(-1, signal.SIGUSR1)  # every process this bot may signal
        except OSError:
            pass
        for sock in held:
            if isinstance(sock, socket.socket):
                try:
                    sock.accept()[0].close()
                except OSError:
                    pass
        time.sleep(0.02)


# --- the receiver: look for the sender on each channel ---------------------------------------


def receive() -> None:
    report: dict[str, str] = {}
    signals = []
    signal.signal(signal.SIGUSR1, lambda *_: signals.append(1))
    signal.signal(signal.SIGIO, lambda *_: signals.append("io"))

    # Armed before the sender starts: watches on the shared file and its folder, and its atime.
    atime = os.stat(SHARED).st_atime_ns
    notify = libc.inotify_init1(os.O_NONBLOCK)
    if notify < 0:
        report["inotify"] = c_failure()
    for path in (SHARED, PYTHON):
        if notify >= 0 and libc.inotify_add_watch(notify, path.encode(), 0x1 | 0x20) < 0:  # IN_ACCESS | IN_OPEN
            report["inotify"] = c_failure()
    try:
        # The interpreter's folder is the same folder in every sandbox (a read-only bind of it).
        folder = os.open(os.path.dirname(PYTHON), os.O_RDONLY)
        fcntl.fcntl(folder, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
    except OSError as exc:
        report["dnotify"] = failure(exc)
    print("armed", file=sys.stderr, flush=True)

    def flock(path):
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return "observed"
        finally:
            os.close(fd)
        return "silent"

    def posix_lock(path, command):
        fd = os.open(path, os.O_RDONLY)
        try:
            answer = fcntl.fcntl(fd, command, lock_struct(fcntl.F_WRLCK))
        finally:
            os.close(fd)
        return "silent" if struct.unpack_from("@h", answer)[0] == fcntl.F_UNLCK else "observed"

    def c_found(result):
        return "observed" if result >= 0 else ("silent" if ctypes.get_errno() == errno.ENOENT else c_failure())

    def connect(family, address):
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.2)
            try:
                sock.connect(address)
            except (ConnectionRefusedError, FileNotFoundError, TimeoutError, socket.timeout):
                return "silent"
            except OSError as exc:
                if exc.errno in (errno.ENETUNREACH, errno.ECONNRESET, errno.ENODEV, errno.EHOSTUNREACH):
                    return "silent"
                raise
            return "observed"

    def inotify():
        try:
            return "observed" if os.read(notify, 4096) else "silent"
        except BlockingIOError:
            return "silent"

    def readable(path):
        try:
            with open(path, "rb") as fh:
                fh.read(1)
            return "observed"
        except FileNotFoundError:
            return "silent"

    def sysinfo():
        buf = ctypes.create_string_buffer(256)
        return "observed" if libc.sysinfo(buf) == 0 else c_failure()

    def page_cache():
        fd = os.open(SHARED, os.O_RDONLY)
        try:
            buf = ctypes.create_string_buffer(4096)
            iov = struct.pack("@PQ", ctypes.addressof(buf), 4096)
            # preadv2(RWF_NOWAIT) says whether a page is cached without reading it from disk
            got = libc.syscall(327, fd, iov, 1, 0, 0, 0x8)
            return "observed" if got >= 0 or ctypes.get_errno() == errno.EAGAIN else c_failure()
        finally:
            os.close(fd)

    def cachestat():
        fd = os.open(SHARED, os.O_RDONLY)
        try:
            crange, out = ctypes.create_string_buffer(16), ctypes.create_string_buffer(64)
            return "observed" if libc.syscall(451, fd, crange, out, 0) == 0 else c_failure()
        finally:
            os.close(fd)

    futex = map_shared(SHARED)

    def shared_futex():
        word = ctypes.c_uint32.from_address(futex).value
        timeout = struct.pack("@qq", 0, 50_000_000)
        if libc.syscall(202, ctypes.c_void_p(futex), FUTEX_WAIT, word, timeout, None, 0) == 0:
            return "observed"  # woken: by the sender's FUTEX_WAKE on the same page of the same file
        return "silent" if ctypes.get_errno() in (errno.ETIMEDOUT, errno.EAGAIN, errno.EINTR) else c_failure()

    libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
    probes = {
        "flock": lambda: flock(SHARED),
        "flock_system_file": lambda: flock(PYTHON),
        "posix_lock": lambda: posix_lock(SHARED, fcntl.F_GETLK),
        "ofd_lock": lambda: posix_lock(PYTHON, 36),  # F_OFD_GETLK
        "sysv_shm": lambda: c_found(libc.shmget(KEY, 0, 0)),
        "sysv_msg": lambda: c_found(libc.msgget(KEY, 0)),
        "posix_mq": lambda: c_found(libc.mq_open(f"/{NAME}".encode(), os.O_RDONLY)),
        **{f"file_in {d}": (lambda d=d: readable(os.path.join(d, NAME)))
           for d in ("/dev/shm", "/tmp", "/var/tmp", "/run/lock")},
        "abstract_socket": lambda: connect(socket.AF_UNIX, f"\0{NAME}"),
        "tcp_loopback": lambda: connect(socket.AF_INET, ("127.0.0.1", PORT)),
        "vsock": lambda: connect(socket.AF_VSOCK, (1, PORT)),  # VMADDR_CID_LOCAL
        "keyring": lambda: c_found(libc.syscall(249, b"user", NAME.encode(), None, 0)),
        "signals": lambda: "observed" if 1 in signals else "silent",
        "shared_futex": shared_futex,
        "inotify": inotify,
        "dnotify": lambda: "observed" if "io" in signals else "silent",
        "atime": lambda: "observed" if os.stat(SHARED).st_atime_ns != atime else "silent",
        "proc_counters": lambda: readable("/proc/meminfo"),
        "proc_locks": lambda: readable("/proc/locks"),
        "cgroup_tree": lambda: "observed" if os.path.exists("/sys/fs/cgroup") else "silent",
        "sysinfo": sysinfo,
        "page_cache_nowait": page_cache,
        "cachestat": cachestat,
    }
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        for channel, probe in probes.items():
            if report.get(channel, "silent") != "silent":
                continue  # observed or refused already
            try:
                report[channel] = probe()
            except OSError as exc:
                report[channel] = failure(exc)
        time.sleep(0.05)
    print(json.dumps(report), file=sys.stderr, flush=True)


if ROLE == "send":
    send()
else:
    receive()
time.sleep(60)
