"""Known mistakes' outputs: computed by a trusted child, never in the sandbox pool, kept on disk."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from graders.engine import Grader
from graders.host.interpreter import PoolSettings
from graders.judging import mistake_runner
from graders.judging.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
SLUG = "token-plus-position-embedding"


@pytest.fixture
def exercises(tmp_path: Path) -> Path:
    folder = tmp_path / "exercises"
    shutil.copytree(ROOT / "exercises" / SLUG, folder / SLUG)
    return folder


@pytest.fixture
def numpy_exercises(exercises: Path) -> Path:
    """The same exercise with its NumPy mistakes only: the caching and hint tests need no JAX or
    torch child (computing those took most of their time); the first test keeps them all."""
    path = exercises / SLUG / "mistakes.yaml"
    data = yaml.safe_load(path.read_text())
    data["mistakes"] = [m for m in data["mistakes"] if m["framework"] == "numpy"]
    assert data["mistakes"]
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return exercises


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = mistake_runner.compute

    def compute(spec, *, background=False):  # type: ignore[no-untyped-def]
        calls.append(spec.slug)
        return real(spec, background=background)

    monkeypatch.setattr(mistake_runner, "compute", compute)
    return calls


def _mistake_files(cache: Path) -> list[Path]:
    """The mistakes' outputs (the cases and expected outputs are cached beside them)."""
    return [p for p in cache.glob("*.npz") if not p.name.endswith(("-cases.npz", "-expected.npz"))]


def _grader(exercises: Path, cache: Path) -> Grader:
    return Grader(exercises, PoolSettings(sizes={}), mistakes_cache_dir=cache)


def test_outputs_match_the_sandbox_protocol_and_are_reused_across_graders(
    exercises: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting(monkeypatch)
    cache = tmp_path / "cache"
    spec = load_spec(exercises / SLUG)
    first = _grader(exercises, cache).mistake_outputs(spec)
    assert set(first) == {m.id for m in spec.mistakes}
    some = next(iter(first.values()))
    assert all(isinstance(v, np.ndarray) for v in some.values()) and some
    assert calls == [SLUG]
    second = _grader(exercises, cache).mistake_outputs(load_spec(exercises / SLUG))
    assert calls == [SLUG], "a restart reads the disk cache instead of running them again"
    for mistake_id, frames in first.items():  # arrays are kept; errors are not needed for hints
        arrays = {k: v for k, v in frames.items() if isinstance(v, np.ndarray)}
        assert arrays.keys() == second[mistake_id].keys()
        for result_id, value in arrays.items():
            np.testing.assert_array_equal(second[mistake_id][result_id], value)


def test_a_changed_exercise_or_a_corrupt_file_is_computed_again(
    numpy_exercises: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exercises = numpy_exercises
    calls = _counting(monkeypatch)
    cache = tmp_path / "cache"
    _grader(exercises, cache).mistake_outputs(load_spec(exercises / SLUG))
    (stored,) = _mistake_files(cache)
    stored.write_bytes(b"not a zip file")
    _grader(exercises, cache).mistake_outputs(load_spec(exercises / SLUG))
    assert calls == [SLUG, SLUG]
    statement = exercises / SLUG / "statement.md"
    statement.write_text(statement.read_text() + "\nOne more sentence.\n")
    _grader(exercises, cache).mistake_outputs(load_spec(exercises / SLUG))
    assert calls == [SLUG, SLUG, SLUG]
    assert len(_mistake_files(cache)) == 2  # the new key beside the old one


def test_a_wrong_answer_gets_its_hint_without_any_sandbox_running_a_mistake(
    numpy_exercises: Path, tmp_path: Path
) -> None:
    exercises = numpy_exercises
    grader = Grader(
        exercises,
        PoolSettings(sizes={"numpy": 1}, jax_warm_up=False),
        mistakes_cache_dir=tmp_path / "cache",
    )
    spec = load_spec(exercises / SLUG)
    mistake = next(m for m in spec.mistakes if m.framework == "numpy")
    grader.start()
    try:
        report = grader.grade(exercise=SLUG, code=mistake.code, framework="numpy")
        named = {t.misconception["id"] for t in report.tests if t.misconception}
        assert mistake.id in named
        server = grader.pool._ready["numpy"][0]
        assert server.jobs == 1, "only the student's job ran in the sandbox"
    finally:
        grader.stop()


def _student_mistake(secret: Path, marker: Path) -> dict[str, object]:
    """A mistake whose code came from a student and tries to steal a secret when it runs."""
    code = (
        "import numpy as np\n\n\n"
        "def embed_with_positions(token_ids, token_table, position_table):\n"
        "    try:\n"
        f"        stolen = open({str(secret)!r}).read()\n"
        f"        open({str(marker)!r}, 'w').write(stolen)\n"
        "    except OSError:\n"
        "        pass\n"
        "    ids = np.asarray(token_ids).astype(np.int64)\n"
        "    rows = np.asarray(token_table)[ids]\n"
        "    return np.abs(rows + np.asarray(position_table)[: ids.shape[1]])\n"
    )
    return {
        "id": "absolute-sum",
        "title": "Took the absolute value",
        "hint": "Do not take abs.",
        "framework": "numpy",
        "code": code,
        "sandboxed": True,
    }


def test_a_mistake_from_a_student_runs_only_in_the_sandbox(
    numpy_exercises: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret, marker = tmp_path / "secret_key", tmp_path / "stolen"
    secret.write_text("the-secret-key")
    path = numpy_exercises / SLUG / "mistakes.yaml"
    data = yaml.safe_load(path.read_text())
    data["mistakes"].append(_student_mistake(secret, marker))
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    spec = load_spec(numpy_exercises / SLUG)
    assert [m.id for m in spec.mistakes if m.sandboxed] == ["absolute-sum"]
    calls = _counting(monkeypatch)
    trusted = mistake_runner.compute(spec)
    assert "absolute-sum" not in trusted and calls == [SLUG]  # the trusted child skipped it
    assert not marker.exists()
    grader = Grader(
        numpy_exercises,
        PoolSettings(sizes={"numpy": 1}, jax_warm_up=False),
        mistakes_cache_dir=tmp_path / "cache",
    )
    grader.start()
    try:
        report = grader.grade(exercise=SLUG, code=str(data["mistakes"][-1]["code"]))
        named = {t.misconception["id"] for t in report.tests if t.misconception}
        assert named == {"absolute-sum"}  # its outputs came from the sandbox, and match
    finally:
        grader.stop()
    assert not marker.exists(), "the student's code ran outside the sandbox"
