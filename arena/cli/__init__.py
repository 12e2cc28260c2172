"""The ``arena`` command line: thin commands over the library.

It owns the terminal: parsing what a user typed, printing data on stdout and messages on
stderr, and turning every error into one line and an exit status (:mod:`.root`).  What a value
means, and everything a command does, is the library's; a command parses its options, calls
the library and prints what it hands back.  It may import every layer below it.

- ``root``: the Typer app, its commands in the order the help lists them, and ``main()``;
- ``options``: the options several commands share, and the checks of what a user typed;
- ``output``: listings as table, csv, json or markdown, JSON and text on stdout, notes on stderr;
- the commands, by kind: ``play`` (selfplay, play, check), ``bots`` (bots add, list, show),
  ``run``, ``listings`` (ratings, games, tournaments), ``results`` (standings, h2h, crosstable),
  ``replay``, ``schema`` and ``bench``;
- what some of them print: ``leaderboard`` (the ratings table), ``history`` (ratings game by game,
  and their plot), ``progress`` (the live line of a
  run), ``replay_view`` (a game told turn by turn) and ``jsonio`` (self-play records).

A new command is a function in the module of its kind (or a new module) and one line in
:mod:`.root`; an option it shares with others is a type in :mod:`.options`.

Imports are at the top of each module, but for what one command or check alone needs and is
costly: the referee, the sandbox, the storage, the tournament, the executors and the
benchmarks, and the ratings, the self-play engine, the replay view, the bot packager and
multiprocessing-logging.  Every command module is imported to build the app, so `arena --help`
(and every command) would pay for them all: on this project's machine they more than double
the import time of ``arena.cli`` (about 145 ms to 330 ms); deferred, it is within 10% of the
one-module CLI's.  Each is imported at the top of the function that uses it.
"""

from arena.cli.root import app, main

__all__ = ["app", "main"]
