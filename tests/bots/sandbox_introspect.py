"""Report what the bot sees of its environment, cwd and processes as one JSON line."""

import json
import os
import sys

cwd = os.getcwd()
st = os.stat(cwd)
try:
    with open("scratch.txt", "w") as f:
        f.write("hello")
    with open("scratch.txt") as f:
        writable = f.read() == "hello"
except OSError:
    writable = False
# argv[1]: the folder of the bot's socket, which must not take files (it is on the host's disk).
socket_dir_writable = None
if len(sys.argv) > 1:
    try:
        with open(os.path.join(sys.argv[1], "filler"), "w") as f:
            f.write("x")
        socket_dir_writable = True
    except OSError:
        socket_dir_writable = False


def visible_pids() -> int:
    """How many processes this bot could signal or see (without /proc: by asking kill())."""
    seen = 0
    for pid in range(1, 1 << 16):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            pass
        seen += 1
    return seen


def listing(folder: str) -> list[str] | str:
    try:
        return sorted(os.listdir(folder))
    except OSError as exc:
        return type(exc).__name__


def readable(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            fh.read(1)
        return "read"
    except OSError as exc:
        return type(exc).__name__


report = {
    "socket_dir_writable": socket_dir_writable,
    "env": dict(os.environ),
    "cwd": cwd,
    "cwd_mode": st.st_mode & 0o777,
    "cwd_uid": st.st_uid,
    "uid": os.getuid(),
    "writable": writable,
    "visible_pids": visible_pids(),
    "proc": os.path.exists("/proc/self"),
    "dev": sorted(os.listdir("/dev")),
    "tmp": listing("/tmp"),
    "root": listing("/root"),
    "shadow": readable("/etc/shadow"),
}
print(json.dumps(report), file=sys.stderr, flush=True)
