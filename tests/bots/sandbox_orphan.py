"""Leave a child running in our process group and exit at once."""

import os
import sys
import time

pid = os.fork()
if pid == 0:
    time.sleep(60)
    os._exit(0)
print(f"child={pid}", file=sys.stderr, flush=True)
