"""`arena run --workers N` carries its workers' warnings to this process with multiprocessing-logging,
and undoes that when the run ends: a program (or a test) that runs twice in one process got every
log record twice in any handler it added to the root logger afterwards (seen as a flaky caplog test)."""

from __future__ import annotations

import logging

import multiprocessing_logging
from typer.testing import CliRunner

from arena.cli import app
from test_tournament import random_field


def test_a_run_with_workers_leaves_the_root_logger_as_it_found_it(tmp_path, caplog) -> None:
    file = tmp_path / "t.toml"
    file.write_text(random_field(3, seats=2))
    root = logging.getLogger()
    after: list[list[logging.Handler]] = []
    for n in range(2):
        result = CliRunner().invoke(app, ["run", str(file), "--db", str(tmp_path / f"{n}.db"), "--workers", "2",
                                          "--quiet"])
        assert result.exit_code == 0, result.output
        assert not [h for h in root.handlers if isinstance(h, multiprocessing_logging.MultiProcessingHandler)]
        after.append(list(root.handlers))
    assert after[0] == after[1]  # the second run added nothing (the first adds the stderr line handler)
    with caplog.at_level("WARNING"):
        logging.getLogger("arena.test").warning("once")
    assert [r.getMessage() for r in caplog.records] == ["once"]
