"""Sleeps for two minutes without a word: no output to die of once its referee's end of the
stderr pipe is gone (a bot that prints is killed by SIGPIPE then, and proves nothing)."""

import signal
import time

signal.signal(signal.SIGPIPE, signal.SIG_IGN)
time.sleep(120)
