"""Behaviour signatures: one wrong behaviour gets one key, whoever wrote it and however."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import numpy as np

from graders import protocol
from graders.judging.judge import SLOTS, Mistakes, judge_outputs
from graders.judging.signature import array_signature, behaviour, failure_signature
from graders.judging.spec import Case, ExerciseSpec, MistakeSpec
from graders.raw_run import RawRun
from graders.report import Report

EXPECTED = np.arange(12, dtype=np.float64).reshape(3, 4)


def _sig(received: np.ndarray) -> dict[str, object]:
    return array_signature(EXPECTED, received, rtol=1e-4, atol=2e-4, verdict="wrong_answer")


def test_the_mask_is_tolerance_aware_and_framework_blind() -> None:
    wrong = EXPECTED.copy()
    wrong[0, 1] += 1.0
    jittered = (wrong + 1e-6).astype(np.float32)  # torch's float32, within tolerance
    one, two = _sig(wrong), _sig(jittered)
    assert one["differ"] == 1
    assert one["mask"] == two["mask"]
    assert behaviour([one])["key"] == behaviour([two])["key"]


def test_other_elements_or_another_direction_give_another_mask() -> None:
    up, down, elsewhere = EXPECTED.copy(), EXPECTED.copy(), EXPECTED.copy()
    up[0, 1] += 1.0
    down[0, 1] -= 1.0
    elsewhere[2, 3] += 1.0
    masks = {_sig(a)["mask"] for a in (up, down, elsewhere)}
    assert len(masks) == 3


def test_a_shape_mismatch_keeps_the_shape_and_no_mask() -> None:
    sig = _sig(EXPECTED.T.copy())
    assert sig["shape"] == [4, 3]
    assert sig["mask"] is None
    assert sig["dtype"] == "float"


def test_the_key_names_the_declared_mistake_and_the_variant() -> None:
    wrong = -EXPECTED
    plain = _sig(wrong)
    named = array_signature(
        EXPECTED,
        wrong,
        rtol=1e-4,
        atol=2e-4,
        verdict="wrong_answer",
        mistake="sign",
        variant="sign_flip",
        nearest=None,
    )
    assert named["mistake"] == "sign" and named["variant"] == "sign_flip"
    assert behaviour([plain])["key"] != behaviour([named])["key"]


def test_errors_are_grouped_by_verdict_and_exception_type() -> None:
    a = failure_signature("runtime_error", error="IndexError")
    b = failure_signature("runtime_error", error="IndexError")
    c = failure_signature("runtime_error", error="TypeError")
    assert behaviour([a])["key"] == behaviour([b])["key"] != behaviour([c])["key"]


# ------------------------------------------------------------------ through the judge


def _spec(tmp_path: Path) -> ExerciseSpec:
    cases = [
        Case(index=0, name="visible", hidden=False, inputs={"x": EXPECTED / 2}),
        Case(index=1, name="hidden", hidden=True, inputs={"x": EXPECTED}),
    ]
    spec = ExerciseSpec(
        slug="demo",
        folder=tmp_path,
        entry_kind="function",
        entry_name="f",
        frameworks=["numpy"],
        time_ms=1000,
        memory_mb=512,
        rtol=1e-4,
        atol=2e-4,
        cases=cases,
        mistakes=[MistakeSpec("plus", "Added instead", "Multiply by two.", "numpy", "")],
    )
    spec._expected = {0: EXPECTED.copy(), 1: EXPECTED * 2}  # what reference.py (x * 2) gives
    return spec


def _run(frames: dict[int, protocol.Result], exit_signal: int | None = None) -> RawRun:
    return RawRun(
        frames=frames,
        ended=True,
        timed_out=False,
        exit_code=0,
        exit_signal=exit_signal,
        output="",
        output_truncated=False,
        max_rss_mb=40.0,
        cpu_ms=5.0,
        protocol_error=None,
        time_limit_ms=1000,
        memory_limit_mb=512,
    )


def _judge(tmp_path: Path, outputs: list[np.ndarray]) -> Report:
    spec = _spec(tmp_path)
    plus = {0: EXPECTED / 2 + 2, 1: EXPECTED + 2}  # the mistake "plus" (x + 2) on each case
    mistakes: Mistakes = {"plus": {i * SLOTS: out for i, out in plus.items()}}
    frames: dict[int, protocol.Result] = {i * SLOTS: out for i, out in enumerate(outputs)}
    return judge_outputs(spec=spec, cases=spec.cases, run=_run(frames), mistakes=lambda: mistakes)


def test_the_report_carries_a_signature_per_test_and_one_key(tmp_path: Path) -> None:
    report = _judge(tmp_path, [EXPECTED / 2 + 2, EXPECTED + 2])
    assert report.behaviour is not None
    tests = report.behaviour["tests"]
    assert [t["mistake"] for t in tests] == ["plus", "plus"]
    assert [t["shape"] for t in tests] == [[3, 4], [3, 4]]
    again = _judge(tmp_path, [(EXPECTED / 2 + 2).astype(np.float32), EXPECTED + 2])
    assert again.behaviour is not None
    assert again.behaviour["key"] == report.behaviour["key"]
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert Report.from_dict(data).behaviour == report.behaviour


def test_an_undeclared_mistake_names_the_nearest_declared_one(tmp_path: Path) -> None:
    near = EXPECTED / 2 + 2
    near[0, 0] = 99.0  # "plus" everywhere but one element
    report = _judge(tmp_path, [near, EXPECTED])
    assert report.behaviour is not None
    first = report.behaviour["tests"][0]
    assert first["mistake"] is None
    assert first["nearest"] == {"id": "plus", "share": round(11 / 12, 3)}


def test_a_raised_error_and_a_crash_have_signatures(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    frames: dict[int, protocol.Result] = {0: protocol.RaisedError("IndexError", "out of range")}
    run = _run(frames, exit_signal=signal.SIGSEGV)
    report = judge_outputs(spec=spec, cases=spec.cases, run=run, mistakes=dict)
    assert report.behaviour is not None
    assert report.behaviour["tests"][0] == failure_signature("runtime_error", error="IndexError")
    assert report.behaviour["tests"][1]["verdict"] == "runtime_error"


def test_an_unreadable_file_has_one_signature_per_verdict(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    frames: dict[int, protocol.Result] = {
        protocol.FILE_LEVEL_TEST: protocol.RaisedError("SyntaxError", "invalid syntax (line 2)")
    }
    report = judge_outputs(spec=spec, cases=spec.cases, run=_run(frames), mistakes=dict)
    assert report.behaviour == behaviour([failure_signature("syntax_error")])


def test_students_never_see_the_signature(tmp_path: Path) -> None:
    from app.submissions.presenter import Viewer, present_report

    report = _judge(tmp_path, [EXPECTED / 2 + 2, EXPECTED + 2])
    text = json.dumps([t.as_json() for t in present_report(report, viewer=Viewer()).tests])
    assert report.behaviour is not None and report.behaviour["key"] not in text
    assert "mask" not in text
