"""The experiment lab: progress relayed, goals judged, failures explained, all sandboxed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml

from graders import protocol
from graders.engine import Grader
from graders.host.interpreter import PoolSettings
from graders.lab.experiments import (
    LOSSES_ID,
    PICTURE_ID,
    PREDICTED_ID,
    PROGRESS_ID,
    REFUSED_ID,
    TRAINING_ID,
    FrameStream,
    StopRequested,
)
from graders.lab.lab_check import CHECK_ID, probes
from graders.lab.lab_report import judge_lab
from graders.lab.lab_scoring import LabSpec, eval_sequences, lab_spec, score
from graders.raw_run import RawRun

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
ABSOLUTE = "lab-learned-vs-sinusoidal"
RAW = {
    "slot": "absolute",
    "offset": 3,
    "vocab": 10,
    "train_length": 16,
    "steps": 400,
    "factors": [1, 1.5, 2, 4],
    "goals": [
        {"factor": 1, "min_accuracy": 0.9},
        {"factor": 2, "min_accuracy": 0.5, "required": False},
    ],
}


def _progress(step: int, loss: float) -> bytes:
    return protocol.encode_array(PROGRESS_ID, np.array([step, 400, loss], dtype=np.float64))


def _answers(spec: LabSpec, index: int, share: float) -> np.ndarray:
    """Predictions for the index-th length that are right on `share` of the answerable places."""
    tokens = list(eval_sequences(spec).values())[index]
    offset = int(spec.settings["offset"])
    predicted = np.zeros_like(tokens)
    predicted[:, offset:] = tokens[:, : tokens.shape[1] - offset]
    answerable = predicted[:, offset:].reshape(-1)
    wrong = round((1 - share) * answerable.size)
    answerable[:wrong] = (answerable[:wrong] + 1) % int(spec.settings["vocab"])
    predicted[:, offset:] = answerable.reshape(tokens.shape[0], -1)
    return predicted


def _split_answers(spec: LabSpec, index: int, trained: float, new: float) -> np.ndarray:
    """Predictions right on `trained` of the trained positions and `new` of the new ones."""
    tokens = list(eval_sequences(spec).values())[index]
    offset, train = int(spec.settings["offset"]), spec.train_length
    predicted = np.zeros_like(tokens)
    predicted[:, offset:] = tokens[:, : tokens.shape[1] - offset]
    for start, stop, share in ((offset, train, trained), (train, tokens.shape[1], new)):
        part = predicted[:, start:stop].reshape(-1)
        wrong = round((1 - share) * part.size)
        part[:wrong] = (part[:wrong] + 1) % int(spec.settings["vocab"])
        predicted[:, start:stop] = part.reshape(tokens.shape[0], -1)
    return predicted


def _lab(slug: str) -> LabSpec:
    meta = yaml.safe_load((EXERCISES / slug / "exercise.yaml").read_text(encoding="utf-8"))
    return lab_spec(meta["experiment"])


def _checked(spec: LabSpec) -> dict[int, protocol.Result]:
    """The module-check frames a right module (sinusoids, or RoPE) would send."""
    import torch

    from graders.lab.positions import Rope, Sinusoidal

    module = Sinusoidal(16, 32) if spec.slot == "absolute" else Rope(2, 16, 16)
    frames: dict[int, protocol.Result] = {}
    for index, (first, second) in enumerate(probes(spec)):
        args = [torch.as_tensor(a) for a in (first, second) if a is not None]
        frames[CHECK_ID + index] = module(*args).numpy()
    return frames


def _predicted(spec: LabSpec, shares: list[float]) -> dict[int, protocol.Result]:
    answers = {PREDICTED_ID + i: _answers(spec, i, share) for i, share in enumerate(shares)}
    return {**_checked(spec), **answers}


def _run(frames: dict[int, protocol.Result]) -> RawRun:
    return RawRun(
        frames=frames,
        ended=True,
        timed_out=False,
        exit_code=0,
        exit_signal=None,
        output="",
        output_truncated=False,
        max_rss_mb=300.0,
        cpu_ms=5000.0,
        protocol_error=None,
        time_limit_ms=45000,
        memory_limit_mb=1536,
    )


def test_lengths_follow_the_factors() -> None:
    spec = lab_spec(RAW)
    assert spec.lengths == [16, 24, 32, 64]
    assert spec.chance == pytest.approx(0.1)
    assert spec.config()["lengths"] == [16, 24, 32, 64]


def test_progress_frames_are_relayed_and_not_counted_by_end() -> None:
    seen: list[dict[str, float]] = []
    stream = FrameStream(seen.append)
    losses = protocol.encode_array(LOSSES_ID, np.array([1.0, 0.5]))
    data = _progress(10, 2.0) + _progress(20, 1.5) + losses + protocol.encode_end(1)
    for start in range(0, len(data), 7):  # frames arrive in pieces
        stream.feed(data[start : start + 7])
    assert stream.error is None and stream.ended
    assert seen == [
        {"step": 10, "steps": 400, "loss": 2.0},
        {"step": 20, "steps": 400, "loss": 1.5},
    ]
    assert list(stream.frames) == [LOSSES_ID]


def test_a_wrong_end_count_or_a_duplicate_is_a_protocol_error() -> None:
    stream = FrameStream(None)
    stream.feed(protocol.encode_array(LOSSES_ID, np.zeros(2)) + protocol.encode_end(3))
    assert stream.error and not stream.ended
    stream = FrameStream(None)
    frame = protocol.encode_array(LOSSES_ID, np.zeros(2))
    stream.feed(frame + frame)
    assert stream.error and "two results" in stream.error


def test_refused_lengths_count_as_zero_on_new_positions_only() -> None:
    spec = lab_spec(RAW)
    message = "the table has 16 rows, so position 16 has no row (line 9 of your code)"
    frames: dict[int, protocol.Result] = {
        **_predicted(spec, [1.0]),
        LOSSES_ID: np.array([2.3, 0.1]),
        REFUSED_ID + 1: protocol.RaisedError("ValueError", message),
        REFUSED_ID + 2: protocol.RaisedError("ValueError", message),
        REFUSED_ID + 3: protocol.RaisedError("ValueError", message),
    }
    report = judge_lab(spec, _run(frames))
    assert report.verdict == "accepted" and report.score == 0.6667  # the stretch goal is missed
    assert report.tests[0].passed and "Module check passed" in report.message
    assert report.metrics is not None
    assert report.metrics["accuracy_by_length"] == {"16": 1.0, "24": None, "32": None, "64": None}
    assert report.metrics["new_by_length"] == {"16": None, "24": None, "32": None, "64": None}
    assert report.metrics["trained_by_length"]["16"] == 1.0
    assert report.metrics["loss"] == [2.3, 0.1] and report.metrics["train_length"] == 16
    assert "at 24 the model could not run (ValueError" in report.message
    assert "its 8 new positions count as 0%" in report.message
    stretch = report.tests[2]
    assert not stretch.passed and "no answer at length 32" in stretch.message


def test_a_required_goal_missed_is_a_wrong_answer_with_the_story() -> None:
    frames: dict[int, protocol.Result] = {
        **_predicted(lab_spec(RAW), [0.35, 0.3, 0.12, 0.1]),
        LOSSES_ID: np.array([2.3, 1.4]),
    }
    report = judge_lab(lab_spec(RAW), _run(frames))
    assert report.verdict == "wrong_answer" and report.score == 0.3333  # only the module check
    assert "at 16 (the training length) it is above chance but mostly wrong (35%)" in report.message
    assert "10% on the 48 new positions (16 to 63): close to chance" in report.message


def test_trained_and_new_positions_are_scored_apart() -> None:
    spec = lab_spec(RAW)
    tokens = eval_sequences(spec)[32]
    found = score(spec, tokens, _split_answers(spec, 2, 1.0, 0.0))
    assert found is not None
    assert (found.trained, found.new) == (1.0, 0.0)
    assert found.all == pytest.approx(13 / 29)  # 13 trained of 29 answerable positions


def test_no_extrapolation_fails_the_labs_required_goals() -> None:
    """Perfect up to the training length and chance beyond is no extrapolation: not accepted."""
    for slug in (ABSOLUTE, "lab-relative-extrapolation"):
        spec = _lab(slug)
        chance = spec.chance
        frames: dict[int, protocol.Result] = {
            PREDICTED_ID + i: _split_answers(spec, i, 1.0, 0.0 if i == 0 else chance)
            for i in range(len(spec.lengths))
        }
        frames.update(_checked(spec))
        frames[LOSSES_ID] = np.zeros(40)
        report = judge_lab(spec, _run(frames))
        assert report.verdict == "wrong_answer", (slug, report.message)
        assert "partly right" not in report.message


def test_goals_past_the_training_length_are_judged_on_new_positions() -> None:
    spec = lab_spec(
        {**RAW, "goals": [{"factor": 1, "min_accuracy": 0.9}, {"factor": 2, "min_accuracy": 0.5}]}
    )
    frames: dict[int, protocol.Result] = {
        PREDICTED_ID + i: _split_answers(spec, i, 1.0, 0.45) for i in range(4)
    }
    frames.update(_checked(spec))
    frames[LOSSES_ID] = np.zeros(40)
    report = judge_lab(spec, _run(frames))
    assert report.verdict == "wrong_answer"  # 45% new, though 74% of all positions at 32
    assert report.tests[2].name == "goal: 50% right on the new positions at length 32 (2x)"
    assert report.metrics is not None
    assert report.metrics["new_by_length"]["32"] == pytest.approx(0.45, abs=0.002)


def test_a_wrong_module_is_not_accepted_however_well_it_trains() -> None:
    spec = lab_spec(RAW)
    frames: dict[int, protocol.Result] = {**_predicted(spec, [1.0] * 4), LOSSES_ID: np.zeros(4)}
    frames[CHECK_ID + 1] = np.zeros((2, 24, 32), dtype=np.float32)
    report = judge_lab(spec, _run(frames))
    assert report.verdict == "wrong_answer" and report.score == 0.6667
    assert not report.tests[0].passed and report.tests[1].passed and report.tests[2].passed
    assert "Module check failed: At length 24" in report.message


def test_nan_loss_is_a_clear_report() -> None:
    frames: dict[int, protocol.Result] = {
        TRAINING_ID: protocol.RaisedError("LossNotFinite", "7"),
    }
    report = judge_lab(lab_spec(RAW), _run(frames))
    assert report.verdict == "wrong_answer"
    assert "loss became NaN (not a number) at step 7 of 400" in report.message
    assert report.metrics == {"train_length": 16, "nan_at_step": 7}


def test_an_exception_while_training_names_the_line() -> None:
    frames: dict[int, protocol.Result] = {
        TRAINING_ID: protocol.RaisedError(
            "IndexError", "index 16 is out of bounds (line 12 of your code)"
        ),
    }
    report = judge_lab(lab_spec(RAW), _run(frames))
    assert report.verdict == "runtime_error" and report.line == 12
    assert "raised IndexError while the model was training" in report.message


def test_same_seed_same_curve_and_a_learned_table_refuses_longer_sequences() -> None:
    from graders.inside.experiment import Config, run
    from graders.lab.positions import LearnedTable

    config = Config(steps=20, log_every=5, lengths=(16, 24))
    sequences = eval_sequences(lab_spec({**RAW, "factors": [1, 1.5]}))
    first = run(config, LearnedTable, sequences)
    second = run(config, LearnedTable, sequences)
    assert first.losses == second.losses and len(first.losses) == 4
    assert list(first.predicted) == [16]
    assert np.array_equal(first.predicted[16], second.predicted[16])
    assert first.predicted[16].shape == sequences[16].shape
    assert "has no row" in str(first.refused[24])


def test_accuracy_is_scored_by_the_grader_from_answers_it_holds() -> None:
    spec = lab_spec(RAW)
    tokens = eval_sequences(spec)[16]
    full = score(spec, tokens, _answers(spec, 0, 1.0))
    assert full is not None and (full.all, full.trained, full.new) == (1.0, 1.0, None)
    quarter = score(spec, tokens, _answers(spec, 0, 0.25))
    assert quarter is not None and quarter.all == pytest.approx(0.25, abs=0.002)
    assert score(spec, tokens, np.ones(4)) is None  # not one answer per position
    assert score(spec, tokens, tokens.astype(np.float64)) is None  # answers are token ids


def test_forged_accuracy_frames_are_not_believed() -> None:
    """The old channel for accuracy now carries only a training error: numbers there are void."""
    frames: dict[int, protocol.Result] = {
        TRAINING_ID: np.ones(4),
        LOSSES_ID: np.zeros(40),
    }
    report = judge_lab(lab_spec(RAW), _run(frames))
    assert report.verdict != "accepted" and report.score == 0.0


def test_a_position_picture_of_the_wrong_shape_is_left_out() -> None:
    spec = lab_spec(RAW)
    frames: dict[int, protocol.Result] = {**_predicted(spec, [1.0, 1.0, 1.0, 1.0])}
    frames[LOSSES_ID] = np.zeros(40)
    frames[PICTURE_ID] = np.eye(16)
    report = judge_lab(spec, _run(frames))
    assert report.metrics is not None
    assert report.metrics["position_picture"]["kind"] == "similarity"
    for bad in (np.eye(5), np.full((16, 16), np.nan), np.zeros(16)):
        frames[PICTURE_ID] = bad
        report = judge_lab(spec, _run(frames))
        assert report.metrics is not None and "position_picture" not in report.metrics


def test_answers_of_the_wrong_shape_are_not_a_result() -> None:
    frames: dict[int, protocol.Result] = {
        **_predicted(lab_spec(RAW), [1.0, 1.0, 1.0]),
        PREDICTED_ID + 3: np.zeros((2, 2), dtype=np.int64),
        LOSSES_ID: np.zeros(40),
    }
    report = judge_lab(lab_spec(RAW), _run(frames))
    assert report.verdict != "accepted" and report.score == 0.0


# ------------------------------------------------------------------ through the real sandbox


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    """A grader without pool interpreters: experiments never use the pool."""
    instance = Grader(EXERCISES, PoolSettings(sizes={}))
    yield instance
    instance.stop()


def _solution(slug: str) -> str:
    return (EXERCISES / slug / "solutions" / "torch.py").read_text()


def test_model_solution_trains_reports_progress_and_meets_its_goals(grader: Grader) -> None:
    seen: list[dict[str, float]] = []
    report = grader.grade(exercise=ABSOLUTE, code=_solution(ABSOLUTE), progress=seen.append)
    assert report.verdict == "accepted", report.message
    assert report.metrics is not None
    accuracy = report.metrics["accuracy_by_length"]
    assert set(accuracy) == {"16", "24", "32", "64"} and accuracy["16"] >= 0.9
    assert accuracy["64"] < accuracy["16"]  # sinusoids extrapolate poorly
    assert len(report.metrics["loss"]) == 40
    picture = report.metrics["position_picture"]  # sinusoids: cosine similarity of positions
    assert picture["kind"] == "similarity" and len(picture["values"]) == 16
    assert all(abs(picture["values"][i][i] - 1.0) < 1e-3 for i in range(16))
    assert seen and seen[-1]["step"] == seen[-1]["steps"] == 400
    assert [p["step"] for p in seen] == sorted(p["step"] for p in seen)


def test_a_relative_module_is_pictured_by_its_score_per_distance(grader: Grader) -> None:
    slug = "lab-relative-extrapolation"
    report = grader.grade(exercise=slug, code=_solution(slug))
    assert report.verdict == "accepted", report.message
    assert report.metrics is not None
    picture = report.metrics["position_picture"]
    assert picture["kind"] == "score_by_offset"
    assert len(picture["values"]) == 2 and len(picture["values"][0]) == 16  # heads x distances


def test_a_stop_from_the_progress_callback_kills_the_run_and_says_so(grader: Grader) -> None:
    seen: list[dict[str, float]] = []

    def progress(frame: dict[str, float]) -> None:
        seen.append(frame)
        if frame["step"] >= 50:
            raise StopRequested("the student pressed Stop")

    report = grader.grade(exercise=ABSOLUTE, code=_solution(ABSOLUTE), progress=progress)
    assert report.verdict == "cancelled" and report.score == 0.0
    assert report.message.startswith("You stopped this run at step 50 of 400")
    assert seen[-1]["step"] == 50  # no frame was taken after the stop
    assert report.metrics == {"train_length": 16, "stopped_at_step": 50}


def test_nan_in_student_module_is_reported_not_crashed(grader: Grader) -> None:
    code = (
        "import torch\nfrom torch import nn\n\n"
        "class SinusoidalPositions(nn.Module):\n"
        "    def __init__(self, max_len, d_model):\n"
        "        super().__init__()\n"
        "    def forward(self, x):\n"
        "        return x + torch.log(torch.zeros_like(x) - 1)\n"
    )
    report = grader.grade(exercise=ABSOLUTE, code=code)
    assert report.verdict == "wrong_answer"
    assert "loss became NaN" in report.message and "at step 1 " in report.message


def test_student_exception_is_a_runtime_error_with_its_line(grader: Grader) -> None:
    code = (
        "import torch\nfrom torch import nn\n\n"
        "class SinusoidalPositions(nn.Module):\n"
        "    def __init__(self, max_len, d_model):\n"
        "        super().__init__()\n"
        "    def forward(self, x):\n"
        "        return x + torch.zeros(3, 5)\n"
    )
    report = grader.grade(exercise=ABSOLUTE, code=code)
    assert report.verdict == "runtime_error" and report.line == 8, report.message


def test_hostile_code_is_contained_like_any_job(grader: Grader) -> None:
    code = (
        "import socket, subprocess\nfrom torch import nn\n\n"
        "class SinusoidalPositions(nn.Module):\n"
        "    def __init__(self, max_len, d_model):\n"
        "        super().__init__()\n"
        "        socket.create_connection(('1.1.1.1', 80), timeout=2)\n"
        "    def forward(self, x):\n"
        "        return x\n"
    )
    report = grader.grade(exercise=ABSOLUTE, code=code)
    assert report.verdict == "runtime_error" and report.line == 7, report.message
    code = code.replace(
        "socket.create_connection(('1.1.1.1', 80), timeout=2)", "subprocess.run(['ls'])"
    )
    report = grader.grade(exercise=ABSOLUTE, code=code)
    assert report.verdict == "runtime_error" and "not allowed" in report.message, report.message


def test_syntax_error_is_file_level(grader: Grader) -> None:
    report = grader.grade(exercise=ABSOLUTE, code="class SinusoidalPositions(\n")
    assert report.verdict == "syntax_error" and report.line == 1
