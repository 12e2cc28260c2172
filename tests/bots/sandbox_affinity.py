"""Try to move onto every CPU of the machine, then onto each one alone; report as JSON what each
try gave ("ok" or the errno's name) and the CPUs it may run on after it (a worker keeps its
table on one CPU: a bot that moved would take another worker's)."""

import errno
import json
import os
import sys

report = {}
for name, cpus in [("all", set(range(os.cpu_count() or 1)))] + [(str(c), {c}) for c in range(os.cpu_count() or 1)]:
    try:
        os.sched_setaffinity(0, cpus)
        outcome = "ok"
    except OSError as exc:
        outcome = errno.errorcode.get(exc.errno, str(exc.errno))
    report[name] = [outcome, sorted(os.sched_getaffinity(0))]
print(json.dumps(report), file=sys.stderr, flush=True)
