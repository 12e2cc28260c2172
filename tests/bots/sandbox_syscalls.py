"""Asks the kernel for what a sandboxed bot must not get (new namespaces, tracing, eBPF, ...)
and for what an ordinary bot needs (threads, child processes), and reports each outcome as JSON
on stderr: "ok" or the errno's name."""

import ctypes
import errno
import json
import os
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
# What any bot may do: a thread, a child process, a fork.
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
sys.stderr.write(json.dumps(report) + "\n")
sys.stderr.flush()
threading.Event().wait(60)
