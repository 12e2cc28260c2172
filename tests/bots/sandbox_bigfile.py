"""Write one file without bound; report how large it got before the file size limit."""

import os
import sys

chunk = b"x" * (1024 * 1024)
with open("big.bin", "wb", buffering=0) as f:
    try:
        for _ in range(1024):  # 1 GB: far beyond any limit a test sets
            f.write(chunk)
        outcome = "no limit"
    except OSError as exc:
        outcome = type(exc).__name__ + f" errno={exc.errno}"
print(f"{outcome} size={os.path.getsize('big.bin')}", file=sys.stderr, flush=True)
