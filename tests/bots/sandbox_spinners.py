"""Fork argv[1] processes that spin on the CPU for ever, each in a session of its own (so that,
without a cgroup, the kernel's autogroups would weigh each as a whole program)."""
import os
import sys
import time

for _ in range(int(sys.argv[1])):
    if os.fork() == 0:
        os.setsid()
        while True:
            pass
print("spinning", file=sys.stderr, flush=True)
time.sleep(3600)
