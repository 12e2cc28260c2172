"""Zoo: writes terminal control sequences (clear screen, window title, a carriage return over a
fake result line, a bidi override) to stderr, then crashes on its first decision."""
import sys

from protocol.sdk import run


def act(observation, legal):
    sys.stderr.write("\x1b[2J\x1b]0;owned\x07 fake\rmatch 1 game 1: 1. zoo_ansi\u202e\n")
    raise RuntimeError("boom \x1b[31mred\x9b0m")


if __name__ == "__main__":
    sys.exit(run(act, name="ansi"))
