"""Bot programs: what a bot is and how it runs (the built-in policies as programs, ``program``)."""
