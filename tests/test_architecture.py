"""The layers import only downwards (ARCHITECTURE.md), and the protocol imports nothing from arena.

The contracts are in pyproject.toml ([tool.importlinter]); import-linter reads every import of
every module, those inside functions and under TYPE_CHECKING included.  The other tests show
the checks can fail: a copy of the tree with one import running upwards, or one reaching past
storage's interface to its SQLite store, breaks them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from common import ROOT


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter on the packages under ``root``, in a process of its own (it imports them)."""
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def test_every_import_runs_downwards() -> None:
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_an_import_that_runs_upwards_is_caught(tmp_path: Path) -> None:
    copy = tmp_path / "tree"
    copy.mkdir()
    for name in ("arena", "protocol"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy)
    rules = copy / "arena" / "games" / "match.py"
    rules.write_text(rules.read_text() + "\n\ndef _upwards() -> None:\n    import arena.storage  # noqa: F401\n")
    done = lint(copy)
    assert done.returncode != 0
    assert "arena.games is not allowed to import arena.storage" in done.stdout, done.stdout


def test_an_import_past_the_store_interface_is_caught(tmp_path: Path) -> None:
    """Storage's interface is the package (Store, open_store, the rows); the SQLite store is one
    backend, which the layers above reach only through it."""
    copy = tmp_path / "tree"
    copy.mkdir()
    for name in ("arena", "protocol"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy)
    runner = copy / "arena" / "tournament" / "runner.py"
    runner.write_text(runner.read_text() + "\n\ndef _past() -> None:\n    import arena.storage.sqlite  # noqa: F401\n")
    done = lint(copy)
    assert done.returncode != 0
    assert "arena.tournament is not allowed to import arena.storage.sqlite" in done.stdout, done.stdout


def test_the_old_import_path_of_the_bot_program_still_works() -> None:
    """Bundled bots stored in a database before the move import ``arena.policies.program``, and a
    stored bot's file never changes: that path must keep giving the same program."""
    import arena.bots.program as program
    import arena.policies.program as old

    assert old.PolicyBot is program.PolicyBot and old.main is program.main
