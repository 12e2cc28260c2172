"""Zoo: says hello, then never answers a request (timeout)."""
import sys
import time

from protocol.sdk import run


def act(observation, legal):
    while True:
        time.sleep(60)


sys.exit(run(act, name="hang"))
