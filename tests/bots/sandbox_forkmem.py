"""Fork 4 children that each take and touch 150 MB, then report how each ended: within a
per-process limit all would live; a bound on the bot as a whole must stop some."""

import os
import sys
import time

children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        block = bytearray(150 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(2)
        os._exit(0)
    children.append(pid)
ends = []
for pid in children:
    _, status = os.waitpid(pid, 0)
    ends.append("ok" if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
                else f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}")
print("children: " + ", ".join(ends), file=sys.stderr, flush=True)
