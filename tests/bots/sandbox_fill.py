"""Write 8 MB files into the working directory, then into /tmp, until a write fails; report how
much each place took (a per-file size limit alone would let this fill the host's disk)."""

import os
import sys

chunk = b"x" * (1024 * 1024)
for where in (".", "/tmp"):
    written = 0
    outcome = "no limit"
    try:
        for n in range(64):  # 512 MB: far beyond what a test allows
            with open(os.path.join(where, f"fill{n}.bin"), "wb", buffering=0) as f:
                for _ in range(8):
                    f.write(chunk)
                    written += len(chunk)
    except OSError as exc:
        outcome = f"errno={exc.errno}"
    print(f"{where}: {outcome} written={written}", file=sys.stderr, flush=True)
print("done", file=sys.stderr, flush=True)
