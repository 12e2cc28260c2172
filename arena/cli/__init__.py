"""The ``arena`` command line: a thin layer over the library.

Every error a user can cause ends as one line on stderr and a non-zero exit status, never a
traceback: 2 for bad arguments (an unknown command, option or value, or a file named on the
command line that is missing or unusable: a bot, a tournament file, a database, an output file),
1 for everything else (a bot that fails its check, a name not found in the database, a failed
match).  A run stopped with Ctrl-C says so and exits with 130.
"""

from arena.cli.root import app, main

__all__ = ["app", "main"]
