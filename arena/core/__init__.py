"""The shared kernel: plain data and small helpers that several layers use (a fault record, ids,
terminal-safe text, signal handling).  It imports nothing from ``arena`` but ``arena.errors``,
and the protocol package; every layer may import it."""
