"""What the sandbox's tests share: where the test bots are, which sandbox this machine offers,
and starting, watching and stopping one test bot.  (Imported by name, as common.py is.)"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from common import PATIENCE_S
from arena.sandbox import BotProcess, Resources, cgroups, launch, procs, sandbox_available, start_bot

BOTS = Path(__file__).parent / "bots"
REPO = Path(__file__).resolve().parent.parent
PYTHON = os.path.realpath(sys.executable)

HAS_BWRAP = sandbox_available()
# Without bwrap a root referee gives each bot a uid of its own in a mount namespace of its own
# (arena.sandbox.mountns), where even the venv's interpreter under /root is reachable.
FALLBACK_UID = os.geteuid() == 0 and launch._mounts_work("namespace")
needs_bwrap = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap (bwrap) is not usable here")
needs_fallback_uid = pytest.mark.skipif(
    not FALLBACK_UID, reason="needs root and the right to make namespaces"
)
needs_cgroups = pytest.mark.skipif(
    cgroups.available() is not None, reason=f"no cgroups for bots here: {cgroups.available()}"
)
BOTH_MODES = [
    pytest.param("strict", marks=needs_bwrap, id="bwrap"),
    pytest.param("none", marks=needs_fallback_uid, id="fallback"),
]


def start(
    endpoint_dir: Path,
    mode: str,
    script: str,
    *args: str,
    limits: Resources = Resources(),
    env: dict[str, str] | None = None,
    python: str | None = None,
    expose: list[Path] = [],
) -> BotProcess:
    """Start one test bot with the venv's interpreter (or ``python``)."""
    python = python or PYTHON
    path = BOTS / script
    return start_bot(
        [python, str(path), *args],
        expose=[path, *expose],
        endpoint_dir=endpoint_dir,
        mode=mode,  # type: ignore[arg-type]
        limits=limits,
        env=env,
        name=script.removesuffix(".py"),
    )


def wait_for(bot: BotProcess, text: str, timeout: float = PATIENCE_S) -> str:
    """Wait until the bot's stderr contains text; return the whole stderr."""
    deadline = time.monotonic() + timeout
    while text not in (err := bot.stderr_text()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} not in stderr of {bot}: {err!r}")
        time.sleep(0.02)
    return err


def json_report(bot: BotProcess) -> dict:
    return json.loads(wait_for(bot, "}\n").strip().splitlines()[-1])


def stop_and_check(bot: BotProcess, grace: float = 0.2) -> int | None:
    """stop(), then assert that nothing of the bot is left: processes, uid, workdir."""
    status = bot.stop(grace)
    assert not procs._is_alive(bot.pid)
    if bot.uid is not None:
        assert procs._live_pids_of_uid(bot.uid) == []
    assert not bot.workdir.exists()
    return status


def gone(pid: int, timeout: float = PATIENCE_S) -> bool:
    deadline = time.monotonic() + timeout
    while procs._is_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
