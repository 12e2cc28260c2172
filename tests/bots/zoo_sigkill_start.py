"""Zoo: killed by SIGKILL before saying hello, as the kernel's OOM killer would do it."""
import os
import signal

os.kill(os.getpid(), signal.SIGKILL)
