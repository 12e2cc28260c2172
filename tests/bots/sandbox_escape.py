"""Escape the process group: setsid + double fork, so the grandchild is an orphan elsewhere."""

import os
import sys
import time

pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        print(f"escaped={os.getpid()}", file=sys.stderr, flush=True)
        time.sleep(60)
    os._exit(0)
os.waitpid(pid, 0)
time.sleep(60)
