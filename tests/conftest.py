"""Fixtures shared by the test files, and the suite's one policy on timing.

The default run (``make test``) asserts behaviour only: nothing in it depends on how fast this
machine is or how busy, so it passes with every core loaded.  Tests that measure time, CPU
shares or bots' strength carry ``@pytest.mark.perf``; they are left out of the default run and
run by ``make perf`` (and by CI in a step of its own), with margins meant to hold on a loaded
machine.  A test that waits for something (a game stored, a process gone) waits for that
condition, up to ``common.PATIENCE_S``, never for a fixed time.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from typer.testing import CliRunner

from arena.storage import Store, open_store

# Hypothesis' per-example ``deadline`` (200 ms by default) and its "too slow" health check
# measure this machine's speed, not the property under test: none of the suite's property tests
# is about speed, and on a loaded machine (issue 16: load 14-20 on two cores) an example of
# test_iter_round_robin_makes_the_same_pairings_table_by_table took longer than the deadline and
# failed a correct run.  So the suite's one profile has no deadline and no timing health check.
settings.register_profile("arena", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("arena")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the perf tests unless a ``-m`` expression was given (``make perf``: ``-m perf``)."""
    if config.getoption("markexpr"):
        return
    perf = [item for item in items if item.get_closest_marker("perf") is not None]
    if perf:
        config.hook.pytest_deselected(items=perf)
        items[:] = [item for item in items if item.get_closest_marker("perf") is None]


@pytest.fixture(autouse=True)
def _signal_handlers_restored() -> Iterator[None]:
    """Each test leaves SIGINT and SIGTERM as it found them.  A test that plays a worker's part
    in-process may set SIGINT to ignored, and every process a later test started in the same
    test worker inherited that: its Ctrl-C test then hung (an order that only parallel runs made)."""
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in before.items():
        if signal.getsignal(sig) is not handler and handler is not None:
            signal.signal(sig, handler)


@pytest.fixture
def shared_deal_key(monkeypatch: pytest.MonkeyPatch) -> bytes:
    """Every database this test makes gets one deal key (arena.core.deals), given as an organiser
    gives it to reproduce another database's tournaments: so a fresh database deals what another
    one dealt."""
    key = bytes(range(32))
    monkeypatch.setenv("ARENA_DEAL_KEY", key.hex())
    return key


@pytest.fixture
def cli() -> CliRunner:
    """Runs ``arena`` commands in-process (Typer's runner)."""
    return CliRunner()


@pytest.fixture
def memory_store() -> Iterator[Store]:
    """An empty arena database in memory."""
    with open_store(":memory:") as store:
        yield store


@pytest.fixture
def endpoint_dir() -> Iterator[Path]:
    """An endpoint dir under a world-traversable parent, as the fallback's uid needs."""
    base = Path(tempfile.mkdtemp(prefix="arena-test-"))
    base.chmod(0o755)
    yield base / "endpoint"
    shutil.rmtree(base, ignore_errors=True)
