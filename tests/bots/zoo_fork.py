"""Zoo: forks without bound on its first decision (stopped by the process limit), then plays on."""
import os
import sys
import time

from protocol.sdk import run

forked = False


def act(observation, legal):
    global forked
    if not forked:
        forked = True
        children = 0
        while children < 10_000:
            try:
                pid = os.fork()
            except OSError as exc:
                print(f"zoo_fork: fork refused after {children} children: {exc}", file=sys.stderr, flush=True)
                break
            if pid == 0:
                time.sleep(1000)
                os._exit(0)
            children += 1
    return legal[0]


sys.exit(run(act, name="fork"))
