"""Bots die with their referee, however and whenever it dies: a pipe that only the referee holds.

A parent-death signal (``PR_SET_PDEATHSIG``, bwrap's ``--die-with-parent``) only covers a death
after it is asked for.  bwrap asks for it in its sandbox's first process once that process has
set the sandbox up, milliseconds after the referee started it; a referee killed with ``kill -9``
in those milliseconds left bwrap and its bot running (10 of 15 tries, as bots started).

So every bot also gets a *guard*: the last command before the bot's own, once its uid is set, is
a small shell that leaves a child waiting on the read end of a pipe (the sandbox's stdin) whose only write end is
the referee's (it is close-on-exec, so no other program the referee starts inherits it), then
runs the bot.  The
kernel closes the write end when the referee dies, however it dies; the waiting child then
reads end-of-file and kills every process of the bot.  When the referee stops a bot itself it
first writes a line (:func:`all_clear`), and the child leaves without killing anything.  A
guard that starts after its referee died reads end-of-file at once, so the bot never runs.

The guard's kill never reaches beyond the bot: it runs as the bot's uid where it has one, else
inside the bot's own pid namespace (bwrap), else it kills the bot's process group.  Running as
the bot, it costs the bot one of its processes, and the bot could kill it; that loses nothing
but the guard itself, which only matters before the bot's code runs.
"""

from __future__ import annotations

import os

__all__ = ["GUARD", "all_clear", "guard_command", "open_lifeline"]

# The read end arrives as stdin (only descriptors 0-9 can be named in sh), moves to 3 for the
# waiting child, and the bot gets /dev/null as stdin, as before.  $1: the command that kills the
# bot, for eval; then the bot's command.  The waiting child keeps no other descriptor of the
# bot's (its stderr pipe would stay open).
GUARD = (
    'kill=$1; shift; exec 3<&0 0</dev/null; '
    '(read _ <&3 || eval "$kill") >/dev/null 2>&1 & '
    'exec 3<&-; exec "$@"'
)


def open_lifeline() -> tuple[int, int]:
    """A new pipe, ``(read end, write end)``, both close-on-exec: the read end goes to one bot
    as its stdin, the write end stays in this process alone."""
    return os.pipe()


def guard_command(*, uid: int | None, in_pid_namespace: bool) -> list[str]:
    """The prefix that guards the command after it (see the module's docstring).  It must get
    the lifeline's read end as stdin, and run as the bot itself (after its uid is set): a guard
    that started before would kill nothing of a bot still on its way to that uid."""
    if uid is not None or in_pid_namespace:
        # Every process of the bot's uid, or of its pid namespace: never as root (the check
        # is a safety net: this guard runs after the bot's uid is set, or in bwrap).
        kill_bot = '[ "$(id -u)" != 0 ] && kill -9 -1'
    else:
        kill_bot = "kill -9 -$$"  # the bot's process group: it leads it (a session of its own)
    return ["/bin/sh", "-c", GUARD, "arena-guard", kill_bot]


def all_clear(write_fd: int) -> None:
    """Tell the bot's guard that it was stopped on purpose, then close the pipe."""
    try:
        os.write(write_fd, b"\n")
    except OSError:
        pass  # the guard is gone already
    finally:
        os.close(write_fd)
