"""The lab report's words for an accuracy agree with the statements' goals (review 4, E6)."""

from __future__ import annotations

from graders.lab.lab_report import _describe


def test_a_goal_the_statement_calls_clearly_above_guessing_is_not_called_close_to_chance() -> None:
    # Lab 1's stretch goal is 15% with chance at 10%, and its statement calls that bar "clearly
    # more than guessing"; the reference scores 19% there. Neither may read "close to chance".
    assert _describe(0.15, 0.1) == "above chance but mostly wrong"
    assert _describe(0.19, 0.1) == "above chance but mostly wrong"


def test_guessing_and_just_above_it_stay_close_to_chance() -> None:
    assert _describe(0.10, 0.1) == "close to chance"
    assert _describe(0.14, 0.1) == "close to chance"
    assert _describe(0.6, 0.1) == "more often right than wrong"
    assert _describe(0.95, 0.1) == "right"
