"""Fork until the process limit refuses, report how many children it made, then stay alive."""

import os
import sys
import time

MAX_CHILDREN = 500  # a cap, so a run without a binding process limit stays bounded

children = 0
while children < MAX_CHILDREN:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children += 1
print(f"children={children}", file=sys.stderr, flush=True)
time.sleep(60)
