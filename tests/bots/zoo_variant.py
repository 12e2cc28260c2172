"""Zoo: fails only when a Powder Keg variant is on (arena check must play the variants)."""
import random, sys
from protocol.sdk import run

def act(observation, legal):
    if observation.get("variants"):
        raise RuntimeError("VARIANT BUG")
    return random.choice(legal)

sys.exit(run(act, name="variant"))
