"""What a test shows of its inputs and outputs: small previews, and a hidden test's reveal."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from graders.judging.spec import Case

PREVIEW_ELEMENTS = 4096


def preview(array: np.ndarray) -> list[Any] | None:
    """A small 1-D/2-D view of an output, for heatmaps in the browser."""
    if array.ndim == 0 or array.size == 0:
        return None
    view = array
    while view.ndim > 2:
        view = view[0]
    if view.size > PREVIEW_ELEMENTS:
        return None
    cells = view.astype(np.float64).astype(object)
    cells[~np.isfinite(view)] = None  # JSON has no NaN or Infinity: the browser shows a blank cell
    return cells.tolist()  # type: ignore[no-any-return]


def inputs_only(case: Case) -> dict[str, Any]:
    """A hidden test that failed without an output to compare: what it gave the code."""
    return {
        "input_shapes": {
            k: list(np.shape(v)) for k, v in case.inputs.items() if isinstance(v, np.ndarray)
        },
        "inputs": generated_input_text(case),
    }


def reveal(case: Case, expected: np.ndarray, received: np.ndarray) -> dict[str, Any]:
    """What a hidden test would have shown, for when its exercise lets students see it."""
    return {
        "input_shapes": {
            k: list(np.shape(v)) for k, v in case.inputs.items() if isinstance(v, np.ndarray)
        },
        "inputs": generated_input_text(case),
        "expected_shape": list(expected.shape),
        "received_shape": list(received.shape),
        "expected": preview(expected),
        "received": preview(received),
    }


SHOWN_VALUES = 48  # a generated input this small is printed whole


INPUT_TEXTS = 1024  # cases whose input text is kept (a course has a few hundred)
_texts: OrderedDict[int, tuple[Case, str]] = OrderedDict()
_texts_lock = threading.Lock()


def generated_input_text(case: Case) -> str:
    """The failing generated input itself, so the student can rerun it by hand.

    Written once per case (by identity: new content, new cases): every hidden test of every
    grade shows it, and printing arrays cost about a millisecond of each grade (issue 54).
    """
    with _texts_lock:
        found = _texts.get(id(case))
        if found is not None and found[0] is case:
            _texts.move_to_end(id(case))
            return found[1]
    text = _input_text(case)
    with _texts_lock:
        _texts[id(case)] = (case, text)  # the case is held, so its id is not reused meanwhile
        while len(_texts) > INPUT_TEXTS:
            _texts.popitem(last=False)
    return text


def _input_text(case: Case) -> str:
    parts = []
    for name, value in case.inputs.items():
        if not isinstance(value, np.ndarray):
            parts.append(f"{name} = {value}")
            continue
        shown = value.astype(np.int64) if np.array_equal(value, np.round(value)) else value
        if value.size > SHOWN_VALUES:
            parts.append(f"{name} of shape {tuple(value.shape)}")
            continue
        text = np.array2string(shown, precision=3, separator=", ", suppress_small=True)
        parts.append(f"{name} = {' '.join(text.split())}")
    return "Its input: " + "; ".join(parts) + "."
