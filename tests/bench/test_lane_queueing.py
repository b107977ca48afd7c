"""The bench shows how long jobs waited in their lane's queue, beside their time (issue 54)."""

from __future__ import annotations

from app.bench import _row, scenarios


def test_the_summary_and_its_row_show_the_queueing_of_a_lane() -> None:
    outcomes = [
        scenarios.Outcome("burst numpy", ms, "accepted", True, framework="numpy", queued_ms=q)
        for ms, q in ((40.0, 5.0), (60.0, 25.0), (90.0, 70.0))
    ]
    found = scenarios.summary(outcomes)
    assert (found["queued_p50_ms"], found["queued_max_ms"]) == (25.0, 70.0)
    assert "queued p50 25.0 max 70.0 ms" in _row("burst numpy", found)
    unknown = scenarios.summary([scenarios.Outcome("x", 1.0, "accepted", True)])
    assert unknown["queued_max_ms"] is None and "queued" not in _row("x", unknown)
