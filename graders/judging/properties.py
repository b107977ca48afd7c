"""Property checks: a sentence saying which defining property a wrong output breaks.

An exercise folder may hold `properties.py` (trusted content, loaded outside any sandbox like
reference.py) with functions `(inputs: dict, output: numpy.ndarray) -> str | None`. A case in
cases.py names one with `"property": "<function name>"`. When a submission fails that case with
an output of the expected shape, the judge calls the function on the case's inputs and the
student's output (as float64) and puts the sentence it returns first in the test's message.
None means the output has the property: the usual feedback alone is then the right one.

Hidden tests never show numbers or indices, so for them the judge says only that the property
the test's name states does not hold.
"""

from __future__ import annotations

import logging
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

PROPERTIES_FILE = "properties.py"
PropertyCheck = Callable[[dict[str, Any], np.ndarray], "str | None"]
HIDDEN_TEXT = "Your output does not have the property this test checks ({name})."
MAX_SENTENCE = 600  # a runaway message must not swamp the report


class PropertyError(Exception):
    """A case names a property that the exercise's properties.py does not define."""


def load_properties(folder: Path, slug: str, names: set[str]) -> dict[str, PropertyCheck]:
    """The property functions that the cases name, from `folder/properties.py`.

    Raises PropertyError when a name is missing or the file cannot be read: a typo in a content
    file must fail loudly when the exercise is loaded, not silently at grading time.
    """
    if not names:
        return {}
    path = folder / PROPERTIES_FILE
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PropertyError(
            f"{slug}/cases.py names properties {sorted(names)} but {PROPERTIES_FILE} "
            f"cannot be read: {exc.strerror}"
        ) from exc
    module_name = f"properties_{slug.replace('-', '_')}"
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    sys.modules[module_name] = module
    exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - trusted content
    found: dict[str, PropertyCheck] = {}
    for name in sorted(names):
        func = getattr(module, name, None)
        if not callable(func):
            raise PropertyError(f"{slug}/{PROPERTIES_FILE} does not define {name}()")
        found[name] = func
    return found


def explain(
    check: PropertyCheck,
    inputs: Mapping[str, Any],
    received: np.ndarray,
    *,
    case_name: str,
    hidden: bool,
) -> str | None:
    """The sentence to put first in a failed test's message, or None.

    The check runs on copies (it cannot spoil the inputs of later tests); if it raises, the
    error is logged and the test keeps its usual feedback: a broken explanation must never
    change a verdict.
    """
    copies = {
        key: np.array(value, copy=True) if isinstance(value, np.ndarray) else value
        for key, value in inputs.items()
    }
    try:
        output = np.array(received, dtype=np.float64, copy=True)
        sentence = check(copies, output)
    except Exception:  # trusted code, but a bug in it must not fail grading
        log.exception("property check failed on case %r", case_name)
        return None
    if sentence is None:
        return None
    if not isinstance(sentence, str) or not sentence.strip():
        log.warning("property check on case %r returned %r", case_name, sentence)
        return None
    if hidden:
        return HIDDEN_TEXT.format(name=case_name)
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= MAX_SENTENCE else sentence[: MAX_SENTENCE - 1] + "…"


def with_property(sentence: str | None, summary: str) -> str:
    """A test message with the property's sentence first, then the usual diagnosis."""
    if not sentence:
        return summary
    rest = summary[:1].upper() + summary[1:]
    return f"{sentence} {rest}" if rest.endswith((".", "?", "!")) else f"{sentence} {rest}."
