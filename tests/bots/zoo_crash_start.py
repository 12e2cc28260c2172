"""Zoo: dies before saying hello (startup)."""
import sys

print("zoo_crash_start: giving up at once", file=sys.stderr)
sys.exit(3)
