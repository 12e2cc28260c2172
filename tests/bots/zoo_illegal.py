"""Zoo: answers with a well-formed action that is never legal (illegal)."""
import sys

from protocol.sdk import run


def act(observation, legal):
    return {"type": "play", "card": "Z"}


sys.exit(run(act, name="illegal"))
