"""From what a user types (a path to a script, a bot folder or archive, or a command line) to a
:class:`BotSpec`."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from arena.bots import folder as folders
from arena.bots.spec import BotSpec, command_words, refuse_empty
from arena.errors import UnknownBot


def bot_spec(target: str, name: str | None = None) -> BotSpec:
    """A :class:`BotSpec` from a path to a script (``.py``, ``.js``), a bot folder or archive
    (packed and unpacked as the registry would store it), or a command line.

    A Python script runs under this interpreter's real path (a pyenv shim under a 0700 home
    can not be executed by the sandbox's uid); a JavaScript file runs under ``node`` and may
    read its own directory (for ``node_modules``).
    """
    refuse_empty(target)
    path = Path(target)
    if path.is_dir() or folders.is_archive(path):
        from arena.bots.package import pack, unpacked

        package = pack(path)
        return unpacked(package, name or package.name or path.name)
    if path.is_file():
        path = path.resolve()
        label = name or path.stem
        if path.suffix == ".py":
            return BotSpec(label, (os.path.realpath(sys.executable), str(path)), (str(path),))
        if path.suffix in (".js", ".mjs", ".cjs"):
            node = shutil.which("node")
            if node is None:
                raise UnknownBot(f"{target} is a JavaScript bot but node is not installed")
            return BotSpec(label, (os.path.realpath(node), str(path)), (str(path.parent),))
        if os.access(path, os.X_OK):
            return BotSpec(label, (str(path),), (str(path),))
        raise UnknownBot(f"{target}: not a .py or .js script, and not executable")
    words = command_words(target)
    if not words or (len(words) == 1 and ("/" in target or target.endswith((".py", ".js")))):
        raise UnknownBot(f"no bot at {target!r}: give a path to a script or a command")
    program = shutil.which(words[0])
    if program is None:
        raise UnknownBot(f"no bot at {target!r}: {words[0]!r} is neither a file nor a command on PATH")
    # An argument that is a path goes to the bot as an absolute one: the bot runs in a folder of
    # its own, where ``python3 bots/mine.py`` would name nothing.
    args = [str(Path(w).resolve()) if Path(w).exists() else w for w in words[1:]]
    expose = tuple(arg for arg, word in zip(args, words[1:]) if Path(word).exists())
    # Named after its script (the first argument that is a file: ``python3 bot.py --fast`` is
    # "bot"), else after the program.
    script = next((w for w in words[1:] if Path(w).is_file()), words[0])
    return BotSpec(name or Path(script).stem, (os.path.realpath(program), *args), expose)
