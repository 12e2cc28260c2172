"""Zoo: plays legally but writes about 2 KB to stderr at every decision."""
import sys

from protocol.sdk import run


def act(observation, legal):
    sys.stderr.write("thinking " + "." * 2000 + "\n")
    return legal[0]


if __name__ == "__main__":
    sys.exit(run(act, name="chatty"))
