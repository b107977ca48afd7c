"""Property checks: properties.py is loaded with the spec, and a failed property case gets a
sentence saying which defining property the output breaks (visible tests) or that it breaks the
one the test's name states (hidden tests). The real exercises' checks are tested here too."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graders.judging.judge import _array_test
from graders.judging.properties import (
    HIDDEN_TEXT,
    MAX_SENTENCE,
    PropertyError,
    explain,
    load_properties,
    with_property,
)
from graders.judging.spec import Case, ExerciseSpec, SpecError, load_spec

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"

PROPERTIES_PY = """
import numpy as np


def rows_equal(inputs, output):
    if np.allclose(output, output[:1]):
        return None
    return "Your rows differ:   row 0 and row 1 should be equal."


def crashes(inputs, output):
    raise RuntimeError("bug in a property check")


def not_a_sentence(inputs, output):
    return 42


def spoils_inputs(inputs, output):
    inputs["x"][...] = 0
    output[...] = 0
    return "spoiled"


def rambles(inputs, output):
    return "word " * 1000
"""


def _folder(tmp_path: Path, properties: str | None = PROPERTIES_PY) -> Path:
    folder = tmp_path / "demo"
    folder.mkdir()
    if properties is not None:
        (folder / "properties.py").write_text(properties)
    return folder


def _spec(folder: Path, names: set[str]) -> ExerciseSpec:
    return ExerciseSpec(
        slug="demo",
        folder=folder,
        entry_kind="function",
        entry_name="f",
        frameworks=["numpy"],
        time_ms=1000,
        memory_mb=512,
        rtol=1e-5,
        atol=1e-6,
        cases=[],
        mistakes=[],
        properties=load_properties(folder, "demo", names),
    )


def _case(prop: str | None, hidden: bool = False) -> Case:
    return Case(index=0, name="equal rows", hidden=hidden, inputs={"x": np.ones(3)}, property=prop)


# ---------------------------------------------------------------- loading


def test_only_the_named_functions_are_loaded(tmp_path: Path) -> None:
    found = load_properties(_folder(tmp_path), "demo", {"rows_equal"})
    assert set(found) == {"rows_equal"}
    assert load_properties(tmp_path / "nowhere", "demo", set()) == {}


def test_a_missing_function_or_file_fails_loudly(tmp_path: Path) -> None:
    with pytest.raises(PropertyError, match="does not define typo"):
        load_properties(_folder(tmp_path), "demo", {"typo"})
    with pytest.raises(PropertyError, match="cannot be read"):
        load_properties(tmp_path / "nowhere", "demo", {"rows_equal"})


def test_load_spec_reads_the_property_of_each_case(tmp_path: Path) -> None:
    folder = tmp_path / "rope-attention-scores"
    shutil.copytree(EXERCISES / "rope-attention-scores", folder)
    spec = load_spec(folder)
    named = {c.property for c in spec.cases if c.property}
    assert named == {"scores_depend_only_on_offset"} == set(spec.properties)
    cases = (folder / "cases.py").read_text()
    (folder / "cases.py").write_text(cases.replace('"scores_depend_only_on_offset"', '"typo"'))
    with pytest.raises(SpecError, match="does not define typo"):
        load_spec(folder)
    (folder / "cases.py").write_text(cases.replace('"scores_depend_only_on_offset"', '"a b"'))
    with pytest.raises(SpecError, match="must be a function name"):
        load_spec(folder)


# ---------------------------------------------------------------- explaining


def test_explain_returns_the_sentence_tidied_or_none(tmp_path: Path) -> None:
    check = _spec(_folder(tmp_path), {"rows_equal"}).properties["rows_equal"]
    inputs = {"x": np.ones(3)}
    wrong = np.array([[1.0, 2.0], [3.0, 4.0]])
    sentence = explain(check, inputs, wrong, case_name="equal rows", hidden=False)
    assert sentence == "Your rows differ: row 0 and row 1 should be equal."
    right = np.ones((2, 2))
    assert explain(check, inputs, right, case_name="equal rows", hidden=False) is None


def test_hidden_tests_only_name_the_property(tmp_path: Path) -> None:
    check = _spec(_folder(tmp_path), {"rows_equal"}).properties["rows_equal"]
    wrong = np.array([[1.0, 2.0], [3.0, 4.0]])
    sentence = explain(check, {}, wrong, case_name="equal rows", hidden=True)
    assert sentence == HIDDEN_TEXT.format(name="equal rows")
    assert "row 0" not in (sentence or "")


def test_a_broken_check_changes_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    names = {"crashes", "not_a_sentence", "spoils_inputs", "rambles"}
    checks = _spec(_folder(tmp_path), names).properties
    inputs: dict[str, Any] = {"x": np.ones(3)}
    received = np.ones((2, 2))
    assert explain(checks["crashes"], inputs, received, case_name="c", hidden=False) is None
    assert "bug in a property check" in caplog.text
    assert explain(checks["not_a_sentence"], inputs, received, case_name="c", hidden=False) is None
    assert explain(checks["spoils_inputs"], inputs, received, case_name="c", hidden=False)
    assert (inputs["x"] == 1).all() and (received == 1).all()  # it worked on copies
    long = explain(checks["rambles"], inputs, received, case_name="c", hidden=False)
    assert long is not None and len(long) == MAX_SENTENCE


def test_with_property_puts_the_sentence_first() -> None:
    assert with_property(None, "3 of 4 values differ") == "3 of 4 values differ"
    assert with_property("Rows differ.", "3 of 4 values differ") == (
        "Rows differ. 3 of 4 values differ."
    )
    assert with_property("Rows differ.", "did you start at -1?").endswith("-1?")


def test_the_judge_puts_the_property_first_only_when_shapes_match(tmp_path: Path) -> None:
    spec = _spec(_folder(tmp_path), {"rows_equal"})
    expected = np.ones((2, 2))
    wrong = np.array([[1.0, 1.0], [3.0, 4.0]])
    test = _array_test(spec, _case("rows_equal"), expected, wrong, dict)
    assert test.verdict == "wrong_answer"
    assert test.message.startswith("Your rows differ: row 0 and row 1 should be equal. 2 of 4")
    hidden = _array_test(spec, _case("rows_equal", hidden=True), expected, wrong, dict)
    assert hidden.message.startswith(HIDDEN_TEXT.format(name="equal rows"))
    plain = _array_test(spec, _case(None), expected, wrong, dict)
    assert plain.message.startswith("2 of 4 values differ")
    shape = _array_test(spec, _case("rows_equal"), expected, np.ones((3, 2)), dict)
    assert shape.message.startswith("expected shape (2, 2)")
    passed = _array_test(spec, _case("rows_equal"), expected, expected.copy(), dict)
    assert passed.passed and passed.message == "Passed."


# ---------------------------------------------------------------- the real exercises


def _property_cases(slug: str) -> tuple[ExerciseSpec, list[Case], Any]:
    spec = load_spec(EXERCISES / slug)
    reference = spec.reference()
    return spec, [c for c in spec.cases if c.property], reference


def test_rope_reference_has_the_property_and_rotating_only_q_breaks_it() -> None:
    spec, cases, reference = _property_cases("rope-attention-scores")
    assert len(cases) >= 2
    for case in cases:
        check = spec.properties[str(case.property)]
        q, k = (np.asarray(case.inputs[n], dtype=np.float64) for n in ("q", "k"))
        right = np.asarray(reference(q=q, k=k))
        assert check(dict(case.inputs), right) is None, case.name
        # Rotating only the queries: rotate q, then undo the keys' rotation by hand.
        positions = np.arange(q.shape[0])
        only_q = right.copy()
        for n in positions:
            only_q[:, n] = np.asarray(reference(q=q, k=np.tile(k[n], (q.shape[0], 1))))[:, 0]
        sentence = check(dict(case.inputs), only_q)
        assert sentence is not None and "offset" in sentence, case.name
    visible = next(c for c in cases if not c.hidden)
    assert "offset" in visible.name and "same vectors" in visible.name


def test_alibi_reference_has_the_property_and_each_violation_is_named() -> None:
    spec, cases, reference = _property_cases("alibi-attention-scores")
    assert any("zero" in c.name for c in cases) and any("same vectors" in c.name for c in cases)
    for case in cases:
        check = spec.properties[str(case.property)]
        right = np.asarray(reference(q=case.inputs["q"], k=case.inputs["k"]))
        assert check(dict(case.inputs), right) is None, case.name
        below = np.isfinite(right)
        heads, size, _ = right.shape
        distance = np.arange(size)[:, None] - np.arange(size)[None, :]
        slopes = 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)
        ramp = slopes[:, None, None] * distance
        flipped = np.where(below, right + 2 * ramp, -np.inf)
        unmasked = np.where(below, right, right[:, :1, :1] - np.abs(ramp))
        quadratic = np.where(below, right + ramp - ramp * distance, -np.inf)
        steep = np.where(below, right - ramp, -np.inf)
        inputs = dict(case.inputs)
        assert "grow with distance" in str(check(inputs, flipped)), case.name
        assert "not -inf" in str(check(inputs, unmasked)), case.name
        assert "does not grow linearly" in str(check(inputs, quadratic)), case.name
        assert "instead of the slope" in str(check(inputs, steep)), case.name
