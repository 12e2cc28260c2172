"""Zoo: leaves a detached child process running, then plays normally."""
import os
import subprocess
import sys

from protocol.sdk import run

tag = sys.argv[2] if len(sys.argv) > 2 else "zoo-child"
# The child's command line carries the test's tag, so the test can look for it.
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)", tag], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(f"zoo_child: started a detached child from {os.getpid()}", file=sys.stderr, flush=True)


def act(observation, legal):
    return legal[0]


sys.exit(run(act, name="child"))
