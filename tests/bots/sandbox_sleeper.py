"""Sleep until told to stop; exit cleanly on SIGTERM, so a graceful stop can be seen."""

import signal
import sys
import time


def on_term(signum: int, frame: object) -> None:
    print("got SIGTERM", file=sys.stderr, flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, on_term)
print("ready", file=sys.stderr, flush=True)
time.sleep(600)
