"""Start one untrusted bot program in a sandbox, and make sure none of it survives ``stop()``.

Layers, strongest first:

* **bubblewrap** (``bwrap``): new pid, network, ipc, uts and cgroup namespaces; a read-only view
  of the system, the Python installation, the ``arena``/``protocol`` packages and the paths the
  caller exposes; a private ``/tmp``; no network.  The only way out is the ``ipc://`` socket in
  ``endpoint_dir``.  Killing bwrap kills its pid namespace, and with it every process inside.
  A seccomp filter (:mod:`arena.sandbox.seccomp`) refuses new namespaces, tracing and the kernel's
  riskiest interfaces (x86-64; elsewhere a warning says it is missing).
* **a dedicated uid** (60001-60999, leased with ``flock`` so that it is unique on the machine)
  when the referee runs as root.  Root ignores ``RLIMIT_NPROC``, so only this makes the process
  limit bind; it also keeps bots out of each other's files and lets ``stop()`` find processes
  that left the process group (``setsid``, double fork) by scanning ``/proc``.
* **rlimits** (via ``prlimit``), a session of its own, a private working directory, a scrubbed
  environment, stdin/stdout on ``/dev/null`` and stderr captured into a bounded buffer.

``mode="none"`` (or ``"auto"`` without bwrap) keeps only the last two layers.  When the referee
is not root, bots run as the referee's user: ``RLIMIT_NPROC`` then counts *all* processes of that
user, and processes that escape the process group are not found by ``stop()``.  A root referee
whose bot cannot run under a uid of its own (no bwrap, and its interpreter or files under a folder
such as ``/root`` that other uids cannot enter) runs it as root, but where the machine offers
cgroups (:mod:`arena.sandbox.cgroups`) still in groups of its own: they bound it as a whole, and
``stop()`` kills every process they list, those that left the process group included.  Groups of
a referee that died are swept by :func:`reap_stale_groups` when the next session starts.

Bots die with the referee (``--die-with-parent`` / ``PR_SET_PDEATHSIG``).  That signal follows the
*thread* that started the bot, so call :func:`start_bot` from a thread that lives as long as the
match (e.g. a worker process's main thread).

The referee binds its socket *before* calling :func:`start_bot`: a socket bound by root has mode
0755, and ``connect()`` needs write permission, so ``start_bot`` hands the sockets already in
``endpoint_dir`` to the bot's uid (mode 0600), which keeps other bots out.  The directory itself
stays the referee's (mode 0711) and is mounted read-only: the bot can reach its socket but
not write files to the host's disk there.

Modules: ``launch`` (the command line that starts a bot: bwrap, uid, rlimits, cgroups),
``process`` (a running bot and its stop), ``procs`` (finding and killing processes),
``uids`` (leasing a uid of its own), ``cleanup`` (what killed referees left behind),
``cgroups``, ``seccomp`` and ``config`` (limits, modes, errors).
"""

from arena.sandbox.cleanup import reap_orphans, reap_stale_groups, remove_stale_workdirs
from arena.sandbox.config import Resources, Mode, SandboxError, SandboxWarning
from arena.sandbox.launch import check_mode, sandbox_available, start_bot
from arena.sandbox.process import BotProcess, stop_all

__all__ = ["BotProcess", "Resources", "Mode", "SandboxError", "SandboxWarning", "check_mode", "reap_orphans",
           "reap_stale_groups", "remove_stale_workdirs", "sandbox_available", "start_bot", "stop_all"]
