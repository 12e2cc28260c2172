"""Zoo: plays at random, but told to shut down lingers on (and ignores SIGTERM), so every stop
of it waits and then kills it."""
import random
import signal
import sys
import time

from protocol.sdk import run

signal.signal(signal.SIGTERM, signal.SIG_IGN)
run(lambda observation, legal: random.choice(legal), name="linger")
time.sleep(30)
sys.exit(0)
