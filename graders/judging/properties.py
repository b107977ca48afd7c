"""Property checks: a sentence saying which defining property a wrong output breaks.

An exercise folder may hold `properties.py` with functions
`(inputs: dict, output: numpy.ndarray) -> str | None`. A case in cases.py names one with
`"property": "<function name>"`. When a submission fails that case with an output of the
expected shape, the judge has the function called on the case's inputs and the student's output
(as float64) and puts the sentence it returns first in the test's message. None means the output
has the property: the usual feedback alone is then the right one. The file is content an editor
may write in a browser, so it runs in the sandbox (graders/judging/content.py), all the checks of
one report in one run; only the sentences come back.

Hidden tests never show numbers or indices, so for them the judge says only that the property
the test's name states does not hold.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graders import protocol
from graders.judging import content

log = logging.getLogger(__name__)

PROPERTIES_FILE = "properties.py"
HIDDEN_TEXT = "Your output does not have the property this test checks ({name})."
MAX_SENTENCE = 600  # a runaway message must not swamp the report
# A report waits for its sentences: a check that takes longer is dropped (the usual feedback
# stays), like one that raises.
LIMITS = content.ContentLimits(memory_mb=1024, cpu_seconds=20, timeout_s=30.0)


class PropertyError(Exception):
    """A case names a property that the exercise's properties.py does not define."""


@dataclass(frozen=True)
class PropertyCheck:
    """One function of an exercise's properties.py, which runs only in the sandbox."""

    folder: Path
    name: str

    def __call__(self, inputs: dict[str, Any], output: np.ndarray) -> str | None:
        """The sentence for one output (a sandbox of its own: `sentences` batches them)."""
        (found,) = sentences([(self, inputs, output)])
        if isinstance(found, Exception):
            raise found
        return found


Request = tuple[PropertyCheck, Mapping[str, Any], np.ndarray]


def load_properties(folder: Path, slug: str, names: set[str]) -> dict[str, PropertyCheck]:
    """The property functions that the cases name, from `folder/properties.py`.

    Raises PropertyError when a name is missing or the file cannot be read: a typo in a content
    file must fail loudly when the exercise is loaded, not silently at grading time. (load_spec
    has the cases' sandbox check this; here it takes a sandbox run of its own.)
    """
    if not names:
        return {}
    if not (folder / PROPERTIES_FILE).is_file():
        raise PropertyError(
            f"{slug}/cases.py names properties {sorted(names)} but {PROPERTIES_FILE} "
            "cannot be read: No such file or directory"
        )
    checks = {name: PropertyCheck(folder, name) for name in sorted(names)}
    batch = [_job(name, []) for name in checks]
    try:
        streams = content.run(folder, batch, limits=LIMITS)
        for stream in streams:
            error = content.file_error(content.decode(stream, []))
            if error is not None:
                raise PropertyError(f"{slug}/{PROPERTIES_FILE}: {content.describe(error)}")
    except content.ContentRunError as exc:
        raise PropertyError(f"{slug}/{PROPERTIES_FILE} could not be run: {exc}") from None
    return checks


def _job(name: str, cases: list[protocol.JobCase]) -> protocol.Job:
    return protocol.Job(
        entry_name=name, entry_kind="content", framework="numpy", mode="property", cases=cases
    )


def sentences(requests: Sequence[Request]) -> list[str | Exception | None]:
    """Each request's sentence (None: the property holds), or the error its check raised.

    One sandbox per exercise folder runs every check of the batch.
    """
    answers: list[str | Exception | None] = [None] * len(requests)
    by_folder: dict[Path, dict[str, list[int]]] = {}
    for number, (check, _, _) in enumerate(requests):
        by_folder.setdefault(check.folder, {}).setdefault(check.name, []).append(number)
    for folder, by_name in by_folder.items():
        batch = []
        for name, numbers in by_name.items():
            cases = []
            for number in numbers:
                _, inputs, received = requests[number]
                args = {k: v for k, v in inputs.items() if isinstance(v, np.ndarray | int | float)}
                args[content.OUTPUT_ARG] = np.asarray(received, dtype=np.float64)
                cases.append(protocol.JobCase(number, args))
            batch.append(_job(name, cases))
        try:
            streams = content.run(folder, batch, limits=LIMITS)
        except (content.ContentRunError, OSError, RuntimeError) as exc:
            for numbers in by_name.values():
                for number in numbers:
                    answers[number] = exc
            continue
        for numbers, stream in zip(by_name.values(), streams, strict=True):
            try:
                frames = content.decode(stream, numbers)
            except content.ContentRunError as exc:
                frames = {n: exc for n in numbers}  # type: ignore[misc]
            whole = content.file_error(frames)
            for number in numbers:
                found = frames.get(number, whole)
                if isinstance(found, np.ndarray) and found.dtype == np.uint8:
                    answers[number] = found.tobytes().decode("utf-8", "replace") or None
                elif isinstance(found, protocol.RaisedError):
                    answers[number] = RuntimeError(content.describe(found))
                elif isinstance(found, Exception):
                    answers[number] = found
                else:
                    answers[number] = RuntimeError("the check sent something else than text")
    return answers


def explain(
    check: PropertyCheck,
    inputs: Mapping[str, Any],
    received: np.ndarray,
    *,
    case_name: str,
    hidden: bool,
) -> str | None:
    """The sentence to put first in a failed test's message, or None (one sandbox run)."""
    (found,) = sentences([(check, inputs, received)])
    return tidy(found, case_name=case_name, hidden=hidden)


def tidy(found: str | Exception | None, *, case_name: str, hidden: bool) -> str | None:
    """A check's answer as the test shows it.

    The check ran on copies in the sandbox (it cannot spoil the inputs of later tests); if it
    raised, the error is logged and the test keeps its usual feedback: a broken explanation
    must never change a verdict.
    """
    if isinstance(found, Exception):
        log.warning("property check failed on case %r: %s", case_name, found)
        return None
    sentence = found
    if sentence is None:
        return None
    if not sentence.strip():
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
