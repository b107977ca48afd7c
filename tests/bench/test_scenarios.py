"""The lab stream draws an answer for every exercise it offers, without a server."""

from __future__ import annotations

import yaml

from app.bench import scenarios


def test_every_offered_exercise_has_a_right_and_a_wrong_answer_to_send() -> None:
    pairs = scenarios.offered()
    assert len(pairs) >= 10
    for exercise, framework in pairs:
        rights, wrongs = scenarios.drawn(exercise, framework)
        assert rights and all(a.right for a in rights), (exercise, framework)
        assert wrongs and not any(a.right for a in wrongs), (exercise, framework)


def test_training_labs_are_left_out_of_the_stream_and_answers_do_not_need_mistakes() -> None:
    labs = {
        meta.parent.name
        for meta in scenarios.EXERCISES.glob("*/exercise.yaml")
        if "experiment" in yaml.safe_load(meta.read_text())
    }
    assert labs, "the course has training labs"
    assert not labs & {exercise for exercise, _ in scenarios.offered()}
    for lab in labs:  # a folder without mistakes.yaml: the starter is its wrong answer
        right, wrong = scenarios.answers(lab, "torch")
        assert right.right and [w.right for w in wrong] == [False]
