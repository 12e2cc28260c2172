"""A random bot that first burns about 0.4 s of CPU: the benchmark must count it (tests/test_bench.py)."""

import random
import sys
import time

from protocol.sdk import run

start = time.process_time()
while time.process_time() - start < 0.4:
    pass

rng = random.Random(0)
sys.exit(run(lambda observation, legal: rng.choice(legal), name="burner"))
