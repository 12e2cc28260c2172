"""What ``arena check`` tells an author whose bot fails for what the sandbox does not show it.

The two failures authors meet first: a module the bot imports that is not in the sandbox (a
second file of a one-file bot, a package installed in a venv of their own), and a program or
``#!`` interpreter outside what the sandbox mounts (where the kernel's "No such file or
directory" names a file that is plainly there on the host).
"""

from __future__ import annotations

import os
import re

from arena.bots.folder import MANIFEST, visible_trees
from arena.bots.spec import BotSpec

_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")
SEEN = ("the sandbox shows a bot only its own file (a one-file bot) or its folder (a folder with a "
        f"{MANIFEST}), arena's Python with its packages, and the system's /usr")


def _shown(path: str, spec: BotSpec) -> bool:
    """Whether the sandbox shows ``path``: both where it is (a link's own place) and what it is."""
    roots = [*visible_trees(), *(os.path.abspath(p) for p in spec.expose), *(os.path.realpath(p) for p in spec.expose)]

    def under(p: str) -> bool:
        return any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots)

    return under(os.path.abspath(path)) and under(os.path.realpath(path))


def _interpreter(program: str) -> str | None:
    """The interpreter a ``#!`` line names, if the program is a script with one."""
    try:
        with open(program, "rb") as fh:
            first = fh.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        return None  # found on the sandbox's PATH, which is the system's
    return words[0]


def program_problems(spec: BotSpec) -> list[str]:
    """Before the bot runs: an interpreter its program's ``#!`` names that the sandbox will not
    show (a venv outside the bot's folder, say).  The program file itself is always mounted."""
    program = spec.command[0]
    if not os.path.isabs(program):
        return []
    interpreter = _interpreter(program)
    if interpreter is not None and not _shown(interpreter, spec):
        return [f"{program} starts with #!{interpreter}, which is not visible in the sandbox ({SEEN}), so it fails "
                "with \"No such file or directory\": run it with \"python\" (arena's), or make the bot a folder "
                f"that holds its venv ({MANIFEST}: command = [\"venv/bin/python\", \"bot.py\"], the venv built "
                "from /usr/bin/python3 or from arena's Python)"]
    return []


def stderr_problems(stderr: str, spec: BotSpec) -> list[str]:
    """After the bot ran: what its stderr says that an author can fix."""
    out = []
    for module in dict.fromkeys(_MISSING_MODULE.findall(stderr)):
        top = module.split(".")[0]
        one_file = len(spec.expose) == 1 and os.path.isfile(spec.expose[0])
        fix = (f"make the bot a folder with a {MANIFEST} (command = [\"python\", \"bot.py\"]) and put {top} in it "
               if one_file else f"put {top} in the bot's folder (beside the script, or `pip install --target "
               f"FOLDER {top}`; or in a venv inside the folder, run as venv/bin/python) ")
        out.append(f"the bot imports {module!r}, which it cannot find: {SEEN}; {fix}and check it again")
    return out
