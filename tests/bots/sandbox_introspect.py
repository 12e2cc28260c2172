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
report = {
    "env": dict(os.environ),
    "cwd": cwd,
    "cwd_mode": st.st_mode & 0o777,
    "cwd_uid": st.st_uid,
    "uid": os.getuid(),
    "writable": writable,
    "visible_pids": sum(name.isdigit() for name in os.listdir("/proc")),
}
print(json.dumps(report), file=sys.stderr, flush=True)
