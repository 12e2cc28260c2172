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
report = {
    "socket_dir_writable": socket_dir_writable,
    "env": dict(os.environ),
    "cwd": cwd,
    "cwd_mode": st.st_mode & 0o777,
    "cwd_uid": st.st_uid,
    "uid": os.getuid(),
    "writable": writable,
    "visible_pids": sum(name.isdigit() for name in os.listdir("/proc")),
}
print(json.dumps(report), file=sys.stderr, flush=True)
