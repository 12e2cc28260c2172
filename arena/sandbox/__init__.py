"""Start one untrusted bot program in a sandbox, and make sure none of it survives ``stop()``.

Layers, strongest first:

* **bubblewrap** (``bwrap``): new pid, network, ipc, uts and cgroup namespaces; a read-only view
  of the system, the Python installation, the ``arena``/``protocol`` packages and the paths the
  caller exposes; no ``/proc`` and a ``/dev`` of five devices; a private ``/tmp`` and working
  folder (tmpfs bounded in size and, as root, in files); no network.  The only way out is the
  ``ipc://`` socket in ``endpoint_dir``.  Killing bwrap kills its pid namespace, and with it every
  process inside.  A seccomp filter (:mod:`arena.sandbox.seccomp`) refuses new namespaces,
  tracing, the kernel's riskiest interfaces and what made channels between bots (file locks,
  notifications, shared futex wake-ups, global counters, other socket families; x86-64,
  elsewhere a warning says it is missing).  A named pipe in an exposed folder is refused.
* **a dedicated uid** (60001-60999, leased with ``flock`` so that it is unique on the machine)
  whenever the referee runs as root: a bot never runs as root.  Root ignores ``RLIMIT_NPROC``, so
  only this makes the process limit bind; it also keeps bots out of each other's files and lets
  ``stop()`` find processes that left the process group (``setsid``, double fork) by scanning
  ``/proc``.  Without bwrap the bot runs in mount, IPC, UTS and network namespaces of its own
  (:mod:`arena.sandbox.mountns`) where its files are reachable by its uid even under ``/root``,
  and its temporary folders are its own; where the machine allows no namespaces, a bot its uid
  cannot reach is refused.  As root, cgroups (:mod:`arena.sandbox.cgroups`) bound the bot as a
  whole and keep it on its worker's CPU.
* **rlimits** (via ``prlimit``), a session of its own, a private working directory, a scrubbed
  environment, stdout on ``/dev/null`` and stderr captured into a bounded buffer.

``mode="none"`` (or ``"auto"`` without bwrap) keeps only the last two layers.  When the referee
is not root, bots run as the referee's user: ``RLIMIT_NPROC`` then counts *all* processes of that
user, and processes that escape the process group are not found by ``stop()``.

Bots die with the referee, however and whenever it dies: ``--die-with-parent`` /
``PR_SET_PDEATHSIG``, and a guard before the bot's own command that kills it when the referee's
end of a pipe closes (:mod:`arena.sandbox.lifeline`); what a killed referee leaves (processes,
cgroups, working folders) is swept when the next session starts (:mod:`arena.sandbox.cleanup`).
The parent-death signal follows the *thread* that started the bot, so call :func:`start_bot`
from a thread that lives as long as the match (e.g. a worker process's main thread).

The referee binds its socket *before* calling :func:`start_bot`: a socket bound by root has mode
0755, and ``connect()`` needs write permission, so ``start_bot`` hands the sockets already in
``endpoint_dir`` to the bot's uid (mode 0600), which keeps other bots out.  The directory itself
stays the referee's (mode 0711) and is mounted read-only: the bot can reach its socket but
not write files to the host's disk there.

Modules: ``launch`` (the plan that starts a bot: bwrap, uid, rlimits, cgroups, mounts, guard),
``process`` (a running bot and its stop), ``procs`` (finding and killing processes),
``uids`` (leasing a uid of its own), ``lifeline`` (dying with the referee), ``mountns`` (a
bot's mounts without bwrap), ``cleanup`` (what killed referees left behind), ``cgroups``,
``seccomp`` and ``config`` (limits, modes, errors).

May import ``arena.core`` and ``arena.errors`` only.
"""

from arena.sandbox.cleanup import reap_orphans, reap_stale_groups, remove_stale_workdirs
from arena.sandbox.config import Resources, Mode, SandboxError, SandboxWarning
from arena.sandbox.launch import check_mode, sandbox_available, start_bot
from arena.sandbox.process import BotProcess, stop_all

__all__ = ["BotProcess", "Resources", "Mode", "SandboxError", "SandboxWarning", "check_mode", "reap_orphans",
           "reap_stale_groups", "remove_stale_workdirs", "sandbox_available", "start_bot", "stop_all"]
