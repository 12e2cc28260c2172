"""Zoo: at start, attacks its sandbox as issue 15's hostile author did, then plays legal moves.

It holds an flock on the interpreter (the channel two copies of a bot used), makes 3,000 empty
files in /tmp, tries to move to every CPU, reads /proc, opens a vsock and leaves a daemon (setsid,
double fork) that would sleep for two minutes; it reports on stderr what it got.  None of it is
a fault: the games go on, and nothing of it may outlive the match."""

import fcntl
import os
import socket
import sys
import time

from protocol.sdk import run


def attempt(name, action):
    try:
        action()
        outcome = "ok"
    except OSError as exc:
        outcome = type(exc).__name__
    print(f"zoo_sandbox_attacker: {name} {outcome}", file=sys.stderr, flush=True)


def lock_interpreter():
    fd = os.open(os.path.realpath(sys.executable), os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def empty_files():
    for n in range(3000):
        os.close(os.open(f"/tmp/e{n}", os.O_CREAT | os.O_WRONLY, 0o600))


def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(120)
        os._exit(0)
    os.wait()


attempt("flock", lock_interpreter)
attempt("files", empty_files)
attempt("affinity", lambda: os.sched_setaffinity(0, set(range(os.cpu_count() or 1))))
attempt("proc", lambda: open("/proc/self/mountinfo").read())
attempt("vsock", lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM))
attempt("daemon", daemon)


def act(observation, legal):
    return legal[0]


sys.exit(run(act, name="attacker"))
