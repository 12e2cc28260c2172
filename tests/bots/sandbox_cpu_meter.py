"""Spin for argv[1] seconds of wall time; report the share of it this process got on the CPU."""
import sys
import time

wall = float(sys.argv[1])
start, cpu = time.monotonic(), time.process_time()
while time.monotonic() - start < wall:
    pass
print(f"share={(time.process_time() - cpu) / (time.monotonic() - start):.3f}", file=sys.stderr, flush=True)
time.sleep(3600)
