"""Print far more stderr than the sandbox keeps, ending with a marker line."""

import sys

for i in range(100_000):
    sys.stderr.write(f"line {i:06d} of noise\n")
sys.stderr.write("END\n")
