"""The benchmark runs and reports what it promises (a smoke check: numbers are not judged here,
timing tests on a shared machine would only be noise)."""

from __future__ import annotations

from arena.bench import run_all


def test_bench_reports_ratios_against_same_run_baselines() -> None:
    report = run_all(quick=True, sandbox_mode="none", parts=("engines", "pipe", "referee"))
    assert {(e.game, e.players) for e in report.engines} == {
        ("reactor", 2), ("reactor", 4), ("reactor", 6), ("powder-keg", 2), ("powder-keg", 4), ("powder-keg", 5)}
    assert all(e.decisions_per_s > 0 and e.decisions_per_game > 10 for e in report.engines)
    assert report.pipe is not None and report.referee is not None
    assert report.pipe.latency_us > 0 and report.referee.cpu_us > 0
    ratios = report.ratios()
    assert set(ratios) == {"referee_latency_vs_pipe", "referee_cpu_vs_pipe"}
    text = "\n".join(report.lines())
    assert "baseline" in text and "referee decision round trip" in text
    assert report.to_json()["ratios"] == ratios
