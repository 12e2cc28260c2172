"""Play your bot in your own process, where a debugger can stop in ``act``::

    import arena.debug
    from my_bot import MyBot                     # the class (or function) you pass to protocol.sdk.run

    records = arena.debug.play([MyBot, "random"], "reactor", seed="7")
    print(records[0]["result"])

The same seed gives the same games as ``arena play reactor my_bot.py bots/random_bot.py --seed 7``
(built-in bots by name: ``random``, ``heuristic``, ``strong``).  See
:mod:`arena.referee.inprocess` for what is left out of a sandboxed run (time, faults, stderr).
"""

from arena.referee.inprocess import IllegalAction, play

__all__ = ["IllegalAction", "play"]
