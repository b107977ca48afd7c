"""A finished experiment drawn: accuracy and loss over the reference runs, the position picture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.config import ROOT
from app.submissions.lab_figures import figure
from app.users.models import Role
from graders.lab.experiment_reference import content_hash, schemes_of, seeded_names
from tests.conftest import make_token
from tests.submissions.test_api import submit, wait_done

LAB = ROOT / "exercises" / "lab-learned-vs-sinusoidal"
SOLUTION = (LAB / "solutions" / "torch.py").read_text()
METRICS: dict[str, Any] = {
    "train_length": 16,
    "accuracy_by_length": {"16": 1.0, "24": 0.7, "32": 0.55, "64": 0.3},
    "trained_by_length": {"16": 1.0, "24": 1.0, "32": 1.0, "64": 1.0},
    "new_by_length": {"16": None, "24": 0.22, "32": 0.2, "64": 0.14},
    "chance": 0.1,
    "loss": [2.3, 1.1, 0.4],
    "loss_every": 10,
    "position_picture": {"kind": "similarity", "values": [[1.0, 0.5], [0.5, 1.0]]},
}


def _cache(cache: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    for scheme, name in seeded_names(LAB):
        run = {
            "train_length": 16,
            "accuracy_by_length": {"16": 1.0, "24": None},
            "loss": [2.0, 1.0],
        }
        (cache / f"{LAB.name}--{name}--{content_hash(LAB, name)}.json").write_text(json.dumps(run))


def test_accuracy_and_loss_are_drawn_over_the_reference_runs(tmp_path: Path) -> None:
    _cache(tmp_path)
    accuracy = figure("accuracy", METRICS, LAB, tmp_path)
    assert accuracy is not None and accuracy.startswith("<svg") and "your model" in accuracy
    assert "learned (× refused)" in accuracy  # a reference run beside yours
    assert "chance (10%)" in accuracy and "accuracy on the new positions only" in accuracy
    loss = figure("loss", METRICS, LAB, tmp_path)
    assert loss is not None and "yours went from 2.300 to 0.400" in loss
    # yours, and one line a scheme: the model solution ran exactly as one of them, drawn once
    assert loss.count("<polyline") == len(schemes_of(LAB))


def test_without_reference_runs_your_curves_stand_alone(tmp_path: Path) -> None:
    accuracy = figure("accuracy", METRICS, LAB, tmp_path)
    assert accuracy is not None and accuracy.count("<polyline") == 1


def test_the_position_pictures_say_what_they_show(tmp_path: Path) -> None:
    similarity = figure("positions", METRICS, LAB, tmp_path)
    assert (
        similarity is not None and similarity.count("<rect") == 1 + 4 + 3
    )  # background, cells, key
    assert "neighbours 0.50 on average, first and last 0.50" in similarity
    offsets = {
        **METRICS,
        "position_picture": {"kind": "score_by_offset", "values": [[2.0, 1.0, 0.0]] * 2},
    }
    by_offset = figure("positions", offsets, LAB, tmp_path)
    assert by_offset is not None and by_offset.count("<polyline") == 2
    assert "from 2.00 at distance 0 to 0.00 at 2 in head 1" in by_offset
    assert figure("positions", {**METRICS, "position_picture": None}, LAB, tmp_path) is None


def test_the_figures_of_a_run_reach_its_author_only(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    sid = submit(client, student_headers, exercise=LAB.name, code=SOLUTION).json()["id"]
    done = wait_done(client, sid, student_headers, timeout=120)
    assert done["verdict"] == "accepted", done["message"]
    for name in ("accuracy", "loss", "positions"):
        response = client.get(f"/submissions/{sid}/figures/{name}.svg", headers=student_headers)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("image/svg+xml")
        assert response.text.startswith("<svg") and "<script" not in response.text
    other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
    assert client.get(f"/submissions/{sid}/figures/loss.svg", headers=other).status_code == 404
    unknown = client.get(f"/submissions/{sid}/figures/weights.svg", headers=student_headers)
    assert unknown.status_code == 404 and "try accuracy, loss, positions" in unknown.text
    gather = submit(client, student_headers).json()["id"]
    wait_done(client, gather, student_headers)
    plain = client.get(f"/submissions/{gather}/figures/loss.svg", headers=student_headers)
    assert plain.status_code == 404 and "no finished experiment" in plain.text
