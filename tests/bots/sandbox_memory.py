"""Allocate (and touch) memory without bound; report where the memory limit stopped it."""

import sys

chunks = []
try:
    while len(chunks) < 2048:  # 64 GB: far beyond any limit a test sets
        chunks.append(bytearray(32 * 1024 * 1024))
except MemoryError:
    print(f"MemoryError after {len(chunks) * 32} MB", file=sys.stderr, flush=True)
    sys.exit(3)
print("no limit", file=sys.stderr, flush=True)
