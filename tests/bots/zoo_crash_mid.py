"""Zoo: plays two decisions, then raises (crash) on the third."""
import sys

from protocol.sdk import run

calls = 0


def act(observation, legal):
    global calls
    calls += 1
    if calls == 3:
        raise RuntimeError("zoo_crash_mid: deliberate crash on the third decision")
    return legal[0]


sys.exit(run(act, name="crash-mid"))
