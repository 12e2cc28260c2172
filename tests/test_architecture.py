"""The layers import only downwards (ARCHITECTURE.md), the protocol imports nothing from arena,
and no module is part of an import cycle.

The contracts are in pyproject.toml ([tool.importlinter]); import-linter reads every import of
every module, those inside functions and under TYPE_CHECKING included.  The cycle check runs on
the same graph (grimp's, which import-linter builds).  The other tests show the checks can fail:
a copy of the tree with one import running upwards, one reaching past storage's interface to its
SQLite store, or one closing a cycle inside a package, breaks them.
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


CYCLES = """
import sys
import grimp

graph = grimp.build_graph("arena", "protocol", cache_dir=None)
edges = {m: sorted(graph.find_modules_directly_imported_by(m) & graph.modules) for m in sorted(graph.modules)}
# Tarjan's strongly connected components, iteratively: a component of more than one module is a cycle.
index, low, on, stack, found = {}, {}, set(), [], []
for root in edges:
    if root in index:
        continue
    work = [(root, iter(edges[root]))]
    index[root] = low[root] = len(index); stack.append(root); on.add(root)
    while work:
        node, children = work[-1]
        for child in children:
            if child not in index:
                index[child] = low[child] = len(index); stack.append(child); on.add(child)
                work.append((child, iter(edges[child])))
                break
            if child in on:
                low[node] = min(low[node], index[child])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop(); on.discard(member); part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
for part in found:
    print("cycle: " + " ".join(part))
    for a in part:
        for b in edges[a]:
            if b in part:
                line = graph.get_import_details(importer=a, imported=b)[0]
                print(f"    {a} -> {b} (line {line['line_number']}: {line['line_contents']})")
sys.exit(1 if found else 0)
"""


def cycles(root: Path) -> subprocess.CompletedProcess[str]:
    """The import cycles among the modules under ``root``, each with the imports that close it."""
    return subprocess.run([sys.executable, "-c", CYCLES], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def test_no_module_is_part_of_an_import_cycle() -> None:
    """A cycle, even one an import inside a function or under TYPE_CHECKING closes, means two
    modules can be understood (and changed) only together; a package's ``__init__`` may import
    its modules, never the other way round."""
    done = cycles(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_import_that_closes_a_cycle_is_caught(tmp_path: Path) -> None:
    copy = tmp_path / "tree"
    copy.mkdir()
    for name in ("arena", "protocol"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    # The seat imports the table only for a type, as it once did: still a cycle.
    seat = copy / "arena" / "referee" / "seat.py"
    seat.write_text(seat.read_text() + "\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from arena.referee.table import Table\n")
    done = cycles(copy)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cycle: arena.referee.seat arena.referee.table" in done.stdout, done.stdout
    assert "arena.referee.seat -> arena.referee.table" in done.stdout


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


def test_every_package_says_what_it_owns_and_what_it_may_import() -> None:
    """Issue 16: each layer's ``__init__`` says in a few lines what it owns and what it may import
    (the contracts in pyproject.toml enforce the second)."""
    import ast
    import re

    packages = sorted(p for p in (ROOT / "arena").iterdir() if (p / "__init__.py").exists())
    assert len(packages) > 10
    silent = []
    for package in packages:
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        if not re.search(r"\b(may import|imports)\b", doc, re.I):
            silent.append(package.name)
    assert silent == []
