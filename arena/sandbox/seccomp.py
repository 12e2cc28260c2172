"""A seccomp filter for sandboxed bots: the system calls a game bot never needs are refused.

bubblewrap confines what a bot can see; it does not stop the bot from asking the kernel for
new user namespaces (inside which it holds every capability, and can mount, make network
devices and reach much more kernel code), from tracing other processes, or from using the
kernel's least-hardened interfaces (eBPF, perf events, userfaultfd, io_uring, keyrings).
This filter, loaded by bwrap (``--seccomp FD``) just before the bot's command runs, refuses
them with ``EPERM``, so a bot sees an ordinary error instead of dying.

* ``clone`` and ``unshare`` are refused only with a namespace flag: threads and child
  processes work as before.  ``clone3`` passes its flags in memory a filter cannot read, so it
  gets ``ENOSYS``, which makes the C library fall back to ``clone`` (as container runtimes do).
* ``io_uring_setup`` gets ``ENOSYS`` too: runtimes that try it (libuv) then use plain calls.
* Calls made through another ABI (32-bit ``int 0x80``, x32) are refused as a whole, so the
  list cannot be side-stepped by the same call under another number.

The filter is classic BPF, written out here, for x86-64 only: the syscall numbers are the
kernel's, checked against ``asm/unistd_64.h`` by the tests.  On another architecture
:func:`program` returns ``None`` and bots run without it (the sandbox says so once).
"""

from __future__ import annotations

import errno
import os
import platform
import struct

__all__ = ["DENIED", "NAMESPACE_FLAGS", "memfd", "program"]

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH, _ARG0 = 0, 4, 16
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000

# Classic BPF opcodes (linux/bpf_common.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000

# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; CLONE_NEWTIME (0x80) only for
# unshare: for clone those bits are the exit signal.
_CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
NAMESPACE_FLAGS = {"clone": _CLONE_NEW, "unshare": _CLONE_NEW | 0x00000080}

# x86-64 numbers of the calls refused outright (EPERM), by what they would open to a bot.
DENIED: dict[str, int] = {
    # other namespaces and mounts
    "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "open_tree": 428, "move_mount": 429,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    # other processes
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
    # kernel interfaces with a long record of privilege escalations
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250, "add_key": 248,
    "request_key": 249, "io_uring_enter": 426, "io_uring_register": 427,
    # the machine itself (all need capabilities a bot has not got: refused here as well)
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "syslog": 103, "quotactl": 179,
    "lookup_dcookie": 212,
}
FLAG_CHECKED = {"clone": 56, "unshare": 272}
NOT_IMPLEMENTED = {"clone3": 435, "io_uring_setup": 425}


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _ret(value: int) -> bytes:
    return _insn(_RET_K, 0, 0, value)


def _build() -> bytes:
    eperm, enosys = _RET_ERRNO | errno.EPERM, _RET_ERRNO | errno.ENOSYS
    out = [
        _insn(_LD_W_ABS, 0, 0, _ARCH),
        _insn(_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),
        _ret(enosys),  # 32-bit calls on a 64-bit kernel: another syscall table
        _insn(_LD_W_ABS, 0, 0, _NR),
        _insn(_JGE_K, 0, 1, _X32_BIT),
        _ret(enosys),  # the x32 ABI: the same calls with this bit set
    ]
    for name, number in FLAG_CHECKED.items():
        # if nr == number: return EPERM if arg0 has a namespace flag, else allow
        out += [
            _insn(_JEQ_K, 0, 4, number),
            _insn(_LD_W_ABS, 0, 0, _ARG0),
            _insn(_JSET_K, 0, 1, NAMESPACE_FLAGS[name]),
            _ret(eperm),
            _ret(_RET_ALLOW),
        ]
    for number in NOT_IMPLEMENTED.values():
        out += [_insn(_JEQ_K, 0, 1, number), _ret(enosys)]
    for number in DENIED.values():
        out += [_insn(_JEQ_K, 0, 1, number), _ret(eperm)]
    out.append(_ret(_RET_ALLOW))
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
