"""Bot programs: what a bot is and how it runs (the built-in policies as programs, ``program``).

May import the games (their built-in policies), ``arena.core``, ``arena.errors`` and the
protocol; never a layer above."""
