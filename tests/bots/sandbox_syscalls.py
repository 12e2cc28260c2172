"""Asks the kernel for what a sandboxed bot must not get (new namespaces, tracing, eBPF, file
locks, ...) and for what an ordinary bot needs (threads, child processes), and reports each
outcome as JSON on stderr: "ok" or the errno's name."""

import ctypes
import errno
import fcntl
import json
import mmap
import os
import socket
import struct
import subprocess
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWNS = 0x10000000, 0x40000000, 0x00020000


def outcome(result: int) -> str:
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


report = {
    "unshare_user": outcome(libc.unshare(CLONE_NEWUSER)),
    "unshare_user_net": outcome(libc.unshare(CLONE_NEWUSER | CLONE_NEWNET)),
    "unshare_mount": outcome(libc.unshare(CLONE_NEWNS)),
    "ptrace_attach_parent": outcome(libc.ptrace(16, os.getppid(), None, None)),  # PTRACE_ATTACH
    "bpf": outcome(libc.syscall(321, 0, None, 0)),
    "perf_event_open": outcome(libc.syscall(298, None, 0, -1, -1, 0)),
    "userfaultfd": outcome(libc.syscall(323, 0)),
    "io_uring_setup": outcome(libc.syscall(425, 8, None)),
    "keyctl": outcome(libc.syscall(250, 0, 0, 0, 0, 0)),
    "clone3": outcome(libc.syscall(435, None, 0)),
}
# The channels to other bots (issue 15): locks, notifications, shared wake-ups, global counters,
# page-cache probes, other socket families, another CPU.  Tried on the bot's own file.
own = os.open("own.txt", os.O_RDWR | os.O_CREAT, 0o600)
folder = os.open(".", os.O_RDONLY)
whole_file = struct.pack("@hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0)


def attempt(call) -> str:
    try:
        call()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "ok"


def futex(address: int, op: int, value: int, timeout: bytes | None = None) -> str:
    return outcome(libc.syscall(202, ctypes.c_void_p(address), op, value, timeout, None, 0))


word = ctypes.c_uint32(0)
report |= {
    "flock": attempt(lambda: fcntl.flock(own, fcntl.LOCK_EX)),
    "posix_lock": attempt(lambda: fcntl.fcntl(own, fcntl.F_SETLK, whole_file)),
    "posix_lock_query": attempt(lambda: fcntl.fcntl(own, fcntl.F_GETLK, whole_file)),
    "ofd_lock": attempt(lambda: fcntl.fcntl(own, 37, whole_file)),  # F_OFD_SETLK
    "lease": attempt(lambda: fcntl.fcntl(own, fcntl.F_SETLEASE, fcntl.F_RDLCK)),
    "dnotify": attempt(lambda: fcntl.fcntl(folder, fcntl.F_NOTIFY, fcntl.DN_ACCESS)),
    "inotify_init1": outcome(libc.inotify_init1(0)),
    "fanotify_init": outcome(libc.syscall(300, 0, 0)),
    "sysinfo": outcome(libc.sysinfo(ctypes.create_string_buffer(256))),
    "preadv2": outcome(libc.syscall(327, own, None, 0, 0, 0, 0)),
    "cachestat": outcome(libc.syscall(451, own, None, None, 0)),
    "statmount": outcome(libc.syscall(457, None, None, 0, 0)),
    "listmount": outcome(libc.syscall(458, None, None, 0, 0)),
    "io_setup": outcome(libc.syscall(206, 8, ctypes.byref(ctypes.c_ulong(0)))),
    "sched_setaffinity": attempt(lambda: os.sched_setaffinity(0, os.sched_getaffinity(0))),
    "socket_vsock": attempt(lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close()),
    "socket_packet": attempt(lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW).close()),
    "socket_alg": attempt(lambda: socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET).close()),
    "futex_shared_wake": futex(ctypes.addressof(word), 1, 1),  # FUTEX_WAKE
    "futex2_shared_wake": outcome(libc.syscall(454, ctypes.byref(word), ctypes.c_ulong(-1), 1, 2)),  # FUTEX2_SIZE_U32
}
# What any bot may do: a thread, a child process, a fork; its own descriptors, private futexes, a
# shared futex's wait, Unix and IP sockets (private to its network namespace).  Advice that
# would evict a shared file's pages is ignored, not refused.
seen = []
thread = threading.Thread(target=lambda: seen.append(1))
thread.start()
thread.join()
report["thread"] = "ok" if seen else "failed"
report["subprocess"] = "ok" if subprocess.run(["true"]).returncode == 0 else "failed"
pid = os.fork()
if pid == 0:
    os._exit(7)
report["fork"] = "ok" if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 7 else "failed"
report["fcntl_flags"] = attempt(lambda: fcntl.fcntl(own, fcntl.F_GETFL))
report["futex_private_wake"] = futex(ctypes.addressof(word), 1 | 128, 1)
report["futex_shared_wait"] = futex(ctypes.addressof(word), 0, 0, struct.pack("@qq", 0, 1_000_000))
report["socket_unix"] = attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
report["socketpair_unix"] = attempt(lambda: [s.close() for s in socket.socketpair()])
report["socket_inet"] = attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close())
report["fadvise_dontneed"] = attempt(lambda: os.posix_fadvise(own, 0, 0, os.POSIX_FADV_DONTNEED))
page = mmap.mmap(-1, 4096)
report["madvise_pageout"] = attempt(lambda: page.madvise(21))  # MADV_PAGEOUT
report["madvise_dontneed"] = attempt(lambda: page.madvise(mmap.MADV_DONTNEED))
sys.stderr.write(json.dumps(report) + "\n")
sys.stderr.flush()
threading.Event().wait(60)
