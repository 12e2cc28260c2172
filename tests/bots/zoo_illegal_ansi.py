"""Zoo: answers with an illegal action whose card holds a bidi override and a C1 control
sequence (characters JSON leaves unescaped), so that the fault message quotes them."""
import sys

from protocol.sdk import run


def act(observation, legal):
    return {"type": "play", "card": "Z\u202e\x9b2J"}


sys.exit(run(act, name="illegal-ansi"))
