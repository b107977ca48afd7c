"""The report contract (docs/report-contract.md): what the grader writes, the app reads back."""

from __future__ import annotations

import dataclasses
import json

import pytest

from app.config import ROOT
from graders.report import (
    VERDICTS,
    Report,
    TestResult,
    file_level,
    not_utf8,
    overall,
    unavailable,
)


def _full() -> Report:
    tests = [
        TestResult("two positions", False, True, "accepted", "Right."),
        TestResult(
            "shapes",
            False,
            False,
            "wrong_answer",
            "expected shape (4, 8), got (8, 4): the axes look swapped",
            details=["first difference at [0, 1]"],
            misconception={"id": "swapped-axes", "title": "Swapped axes", "hint": "Transpose."},
            input_shapes={"positions": [2, 4]},
            expected_shape=[4, 8],
            received_shape=[8, 4],
            expected=[[0.0, 1.0]],
            received=[[1.0, 0.0]],
        ),
        TestResult(
            "hidden: long sequences",
            True,
            False,
            "runtime_error",
            "IndexError: index 9 is out of bounds",
            reveal={"inputs": {"positions": [[9]]}, "expected": [[0.5]]},
        ),
    ]
    verdict, score = overall(tests)
    return Report(
        verdict=verdict,
        score=score,
        message="2 of 3 tests failed",
        duration_ms=41.5,
        tests=tests,
        stdout="debug\n",
        max_rss_mb=88.0,
        cpu_ms=30.1,
        metrics={"accuracy": {"1.0": 0.98}},
        new_compilation=False,
    )


def _unreadable() -> Report:
    raw = b"x = 1\nprint('\xff')\n"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return not_utf8(raw, error)
    raise AssertionError("the bytes decoded")


REPORTS = {
    "full": _full,
    "file level": lambda: file_level("syntax_error", "line 3: ':' expected", 2.0, line=3),
    "not utf-8": _unreadable,
    "unavailable": lambda: unavailable("bubblewrap is missing", 1.0),
}


@pytest.mark.parametrize("make", REPORTS.values(), ids=list(REPORTS))
def test_a_report_survives_the_json_round_trip(make: object) -> None:
    report = make()  # type: ignore[operator]
    stored = json.loads(json.dumps(report.to_dict()))
    assert Report.from_dict(stored) == report
    assert Report.from_dict(stored).to_dict() == stored


def test_keys_a_later_version_adds_are_ignored_by_this_reader() -> None:
    stored = _full().to_dict()
    stored["confidence"] = 0.9
    stored["tests"][0]["runtime_ms"] = 3
    assert Report.from_dict(stored) == _full()


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda d: d.pop("verdict"), "a report needs verdict"),
        (lambda d: d.update(verdict="wrong"), "unknown verdict 'wrong'"),
        (lambda d: d["tests"][1].pop("passed"), "a test result needs passed"),
        (lambda d: d["tests"][2].update(verdict="oops"), "unknown verdict 'oops'"),
    ],
)
def test_a_broken_report_is_refused_not_half_read(change: object, error: str) -> None:
    stored = _full().to_dict()
    change(stored)  # type: ignore[operator]
    with pytest.raises(ValueError, match=error):
        Report.from_dict(stored)


def test_the_contract_document_lists_every_verdict_and_key() -> None:
    text = (ROOT / "docs" / "report-contract.md").read_text(encoding="utf-8")
    for verdict in VERDICTS:
        assert f"`{verdict}`" in text, verdict
    for key in [*Report.__dataclass_fields__, *TestResult.__dataclass_fields__]:
        assert f"`{key}`" in text, key


@pytest.mark.parametrize("make", REPORTS.values(), ids=list(REPORTS))
def test_to_dict_is_the_dataclass_form_with_nothing_shared(make: object) -> None:
    """Every grade's report is turned into its stored form once (issue 54: `asdict` copied each
    number through `copy.deepcopy`); the form stays `asdict`'s, and changing it changes nothing
    of the report (the grader keeps expected outputs it must not see altered)."""
    report = make()  # type: ignore[operator]
    report.behaviour = {"key": "k", "tests": {"0": ("a", [1, 2])}}
    form = dataclasses.asdict(report)
    for key in ("metrics", "new_compilation"):
        if form[key] is None:
            del form[key]
    assert report.to_dict() == form
    for test in report.to_dict()["tests"]:
        for value in test.values():
            if isinstance(value, (list, dict)):
                value.clear()
    report.to_dict()["behaviour"]["tests"]["0"][1].append(3)
    assert report.to_dict() == form
