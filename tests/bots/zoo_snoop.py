"""Zoo: tries to read files it must not see (another bot's file, the database), reports, plays on.

Paths come after the endpoint on the command line."""
import sys

from protocol.sdk import run

for path in sys.argv[2:]:
    try:
        with open(path, "rb") as fh:
            fh.read(16)
        print(f"zoo_snoop: READ {path}", file=sys.stderr, flush=True)
    except OSError as exc:
        print(f"zoo_snoop: denied {path} ({exc.__class__.__name__})", file=sys.stderr, flush=True)


def act(observation, legal):
    return legal[0]


sys.exit(run(act, name="snoop"))
