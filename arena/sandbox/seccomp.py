"""A seccomp filter for sandboxed bots: the system calls a game bot never needs are refused.

bubblewrap confines what a bot can see; it does not stop the bot from asking the kernel for
new user namespaces (inside which it holds every capability, and can mount, make network
devices and reach much more kernel code), from tracing other processes, or from using the
kernel's least-hardened interfaces (eBPF, perf events, userfaultfd, io_uring, keyrings).
This filter, loaded by bwrap (``--seccomp FD``) just before the bot's command runs, refuses
them with ``EPERM``, so a bot sees an ordinary error instead of dying.

It also closes the channels two bots of one match could open through what every sandbox
shares, the host's read-only files and the kernel's global state (issue 15):

* **file locks** (``flock``, POSIX and open-file-description locks, leases) fail with
  ``ENOLCK``: a lock on ``/usr/bin/python3``, which every bot can open, was seen by every other
  bot (16 bits a turn).  Locks on a bot's own files go too: the call cannot tell the files apart.
* **notifications** of another process's access to a shared file: inotify (``ENOSYS``, as a
  kernel without it), fanotify (``EPERM``), dnotify (``F_NOTIFY``: ``EINVAL``).
* **shared futex wake-ups**: a futex in a shared mapping of a file is known by the file's
  inode, in every process that maps it, so a wake-up crossed sandboxes.  Wake-ups without
  ``FUTEX_PRIVATE_FLAG`` fail with ``EPERM`` (only process-shared locks make them; ordinary
  threads use private ones); waiting stays allowed.
* **global counters and page-cache probes**: ``sysinfo`` (free memory, the number of processes
  on the machine) and ``preadv2``/``cachestat``, which tell whether a page of a shared file is
  cached without reading it, give ``ENOSYS`` (the C library then uses ``preadv``); advice that
  evicts pages of a shared file (``fadvise``, ``madvise`` ``MADV_COLD``/``MADV_PAGEOUT``) is
  ignored, as the kernel may ignore any advice; ``listmount``/``statmount`` (the mounts, and the
  host paths they come from) give ``ENOSYS``.
* **sockets** other than Unix, IPv4, IPv6 and netlink (all private to the bot's network
  namespace) fail with ``EAFNOSUPPORT``: a vsock reaches the virtual machine's host, and is not
  confined by a network namespace.

``sched_setaffinity`` fails with ``EPERM``: a worker keeps its table on one CPU, and a bot must
not move itself onto another table's.

* ``clone`` and ``unshare`` are refused only with a namespace flag: threads and child
  processes work as before.  ``clone3`` passes its flags in memory a filter cannot read, so it
  gets ``ENOSYS``, which makes the C library fall back to ``clone`` (as container runtimes do).
* ``io_uring_setup`` gets ``ENOSYS`` too: runtimes that try it (libuv) then use plain calls.
* Calls made through another ABI (32-bit ``int 0x80``, x32) are refused as a whole, so the
  list cannot be side-stepped by the same call under another number.

The filter is classic BPF, written out here, for x86-64 only: a binary search over the numbers
of the calls it decides (it runs on every system call a bot makes), checked call by call
against its tables by the tests, whose numbers are the kernel's (``asm/unistd_64.h``).  On another architecture
:func:`program` returns ``None`` and bots run without it (the sandbox says so once).
"""

from __future__ import annotations

import errno
import os
import platform
import struct

__all__ = ["ARG_CHECKED", "DENIED", "IGNORED", "NAMESPACE_FLAGS", "NO_LOCKS", "NOT_IMPLEMENTED", "memfd",
           "program"]

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH = 0, 4
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000

# Classic BPF opcodes (linux/bpf_common.h).
_LD_W_ABS = 0x20
_AND_K = 0x54
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000  # | errno; errno 0 makes the call do nothing and return 0

# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; CLONE_NEWTIME (0x80) only for
# unshare: for clone those bits are the exit signal.
_CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
NAMESPACE_FLAGS = {"clone": _CLONE_NEW, "unshare": _CLONE_NEW | 0x00000080}

# x86-64 numbers of the calls refused outright (EPERM), by what they would open to a bot.
DENIED: dict[str, int] = {
    # other namespaces and mounts
    "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "open_tree": 428, "move_mount": 429,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "open_tree_attr": 467,
    # other processes
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "process_madvise": 440,
    # kernel interfaces with a long record of privilege escalations
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250, "add_key": 248,
    "request_key": 249, "io_uring_enter": 426, "io_uring_register": 427,
    # the machine itself (all need capabilities a bot has not got: refused here as well)
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "syslog": 103, "quotactl": 179, "quotactl_fd": 443,
    "lookup_dcookie": 212,
    # channels to other bots: notice of their access to a shared file; another worker's CPU
    "fanotify_init": 300, "fanotify_mark": 301, "sched_setaffinity": 203,
}
# Refused with ENOSYS, as if the kernel had no such call: callers fall back to another way.
NOT_IMPLEMENTED: dict[str, int] = {
    "clone3": 435, "io_uring_setup": 425, "io_setup": 206, "futex_requeue": 456,
    "inotify_init": 253, "inotify_init1": 294, "inotify_add_watch": 254,
    "sysinfo": 99, "preadv2": 327, "pwritev2": 328, "cachestat": 451, "listmount": 458, "statmount": 457,
}
NO_LOCKS: dict[str, int] = {"flock": 73}  # ENOLCK: "no locks available"
IGNORED: dict[str, int] = {"fadvise64": 221}  # advice: the call does nothing and succeeds
# Refused or ignored by their arguments (see _argument_checks).
ARG_CHECKED: dict[str, int] = {
    "clone": 56, "unshare": 272, "fcntl": 72, "madvise": 28, "socket": 41, "socketpair": 53, "futex": 202,
    "futex_wake": 454,
}

# fcntl commands: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE
LOCK_COMMANDS = (5, 6, 7, 36, 37, 38, 1024)
F_NOTIFY = 1026
EVICTING_ADVICE = (20, 21)  # MADV_COLD, MADV_PAGEOUT
SOCKET_FAMILIES = (1, 2, 10, 16)  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
# futex commands that wake other waiters: WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP, UNLOCK_PI,
# WAKE_BITSET, CMP_REQUEUE_PI
FUTEX_WAKES = (1, 3, 4, 5, 7, 10, 12)
FUTEX_PRIVATE_FLAG = 128
FUTEX_COMMAND = 0x7F  # the command without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME
FUTEX2_PRIVATE = 128


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    assert 0 <= jt <= 255 and 0 <= jf <= 255
    return struct.pack("=HBBI", code, jt, jf, k)


def _ret(value: int) -> bytes:
    return _insn(_RET_K, 0, 0, value)


def _refuse(code: int) -> int:
    return _RET_ERRNO | code


def _load_arg(index: int) -> bytes:
    return _insn(_LD_W_ABS, 0, 0, 16 + 8 * index)  # the low 32 bits (little-endian)


def _answers(values: dict[int, int]) -> list[bytes]:
    """Compare the loaded value with each key: the value of the first equal key is returned,
    and a value equal to none is allowed."""
    actions = list(dict.fromkeys(values.values()))
    n = len(values)
    out = [_insn(_JEQ_K, n - i + actions.index(action), 0, value) for i, (value, action) in enumerate(values.items())]
    return [*out, _ret(_RET_ALLOW), *(_ret(action) for action in actions)]


def _allowed_only(values: tuple[int, ...], action: int) -> list[bytes]:
    """Allow the loaded value if it equals one of ``values``, else return ``action``."""
    n = len(values)
    return [*(_insn(_JEQ_K, n - i, 0, value) for i, value in enumerate(values)), _ret(action), _ret(_RET_ALLOW)]


def _argument_checks() -> dict[int, list[bytes]]:
    """For each call refused or ignored by its arguments, the instructions that decide it (each
    path ends in a return)."""
    eperm = _refuse(errno.EPERM)
    wakes = _answers({command: eperm for command in FUTEX_WAKES})
    checks = {
        name: [_load_arg(0), _insn(_JSET_K, 0, 1, flags), _ret(eperm), _ret(_RET_ALLOW)]
        for name, flags in NAMESPACE_FLAGS.items()
    }
    checks["fcntl"] = [_load_arg(1), *_answers({**{c: _refuse(errno.ENOLCK) for c in LOCK_COMMANDS},
                                                F_NOTIFY: _refuse(errno.EINVAL)})]
    checks["madvise"] = [_load_arg(2), *_answers({advice: _refuse(0) for advice in EVICTING_ADVICE})]
    for name in ("socket", "socketpair"):
        checks[name] = [_load_arg(0), *_allowed_only(SOCKET_FAMILIES, _refuse(errno.EAFNOSUPPORT))]
    # A private futex is allowed whatever its command; a shared one may wait but not wake.
    checks["futex"] = [_load_arg(1), _insn(_JSET_K, len(wakes) - 1, 0, FUTEX_PRIVATE_FLAG),
                       _insn(_AND_K, 0, 0, FUTEX_COMMAND), *wakes]
    checks["futex_wake"] = [_load_arg(3), _insn(_JSET_K, 1, 0, FUTEX2_PRIVATE), _ret(eperm), _ret(_RET_ALLOW)]
    assert checks.keys() == ARG_CHECKED.keys()
    return {ARG_CHECKED[name]: body for name, body in checks.items()}


def _rules() -> list[tuple[int, list[bytes]]]:
    """Every call the filter decides, by number, with the instructions that decide it."""
    rules = dict(_argument_checks())
    for table, code in ((NOT_IMPLEMENTED, errno.ENOSYS), (DENIED, errno.EPERM), (NO_LOCKS, errno.ENOLCK),
                        (IGNORED, 0)):
        rules |= {number: [_ret(_refuse(code))] for number in table.values()}
    return sorted(rules.items())


def _search(rules: list[tuple[int, list[bytes]]]) -> list[bytes]:
    """A binary search for the call's number among ``rules`` (sorted), each leaf deciding its
    call, every other call allowed: about 7 comparisons per call rather than one per rule, on
    every system call a bot makes."""
    if len(rules) == 1:
        (number, body), = rules
        return [_insn(_JEQ_K, 0, len(body), number), *body, _ret(_RET_ALLOW)]
    middle = len(rules) // 2
    below, above = _search(rules[:middle]), _search(rules[middle:])
    return [_insn(_JGE_K, len(below), 0, rules[middle][0]), *below, *above]


def _build() -> bytes:
    out = [
        _insn(_LD_W_ABS, 0, 0, _ARCH),
        _insn(_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),
        _ret(_refuse(errno.ENOSYS)),  # 32-bit calls on a 64-bit kernel: another syscall table
        _insn(_LD_W_ABS, 0, 0, _NR),
        _insn(_JGE_K, 0, 1, _X32_BIT),
        _ret(_refuse(errno.ENOSYS)),  # the x32 ABI: the same calls with this bit set
        *_search(_rules()),
    ]
    return b"".join(out)


def program() -> bytes | None:
    """The filter for this machine, as bwrap reads it (an array of ``struct sock_filter``), or
    ``None`` where there is none (not x86-64)."""
    if platform.machine() != "x86_64":
        return None
    return _build()


def memfd(code: bytes) -> int:
    """A file descriptor holding ``code`` from its start, to pass to a child as ``--seccomp FD``;
    the caller closes it once the child has started."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)  # Popen's pass_fds hands it to bwrap alone
    try:
        os.write(fd, code)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
