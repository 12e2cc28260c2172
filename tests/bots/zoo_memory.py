"""Zoo: allocates memory without bound on its first decision (stopped by the address-space limit)."""
import sys

from protocol.sdk import run


def act(observation, legal):
    hoard = []
    while True:
        hoard.append(bytearray(16 << 20))


sys.exit(run(act, name="memory"))
