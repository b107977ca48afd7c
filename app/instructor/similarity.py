"""Similar submissions: pairs of students' final code that share unusually much, as leads.

Fingerprints come from copydetect (winnowing over tokens with names normalised, the method of
MOSS). What many share is left out: the exercise's starter code, its model solution, and any
fingerprint found in a tenth of the submissions compared or more (and in at least three), so
the short, model-like code an exercise invites does not rank every pair high; code only two
share is never "common", since that is what the page looks for. A pair is a lead for a person
to read, never a verdict: the page says so.
"""

from __future__ import annotations

import functools
import hashlib
import io
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.offerings.access import students_here, work_here
from app.offerings.place import Place
from app.submissions.models import PRACTICE, Submission
from app.users.models import User

if TYPE_CHECKING:
    from copydetect import CodeFingerprint


def stable_hash(text: str) -> int:
    """A k-gram's fingerprint, the same in every process.

    Why: copydetect hashes k-grams with Python's `hash()`, which a str gets afresh in every
    process (PYTHONHASHSEED), so winnowing kept different fingerprints and the page, the CLI and
    a restart ranked the same class differently (a pair could appear in one and not the other).
    """
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@functools.cache
def _copydetect() -> Any:
    """copydetect, imported when first compared: it brings matplotlib, a third of a second of
    every server start (issue 54: a restart to its first verdict)."""
    import copydetect
    import copydetect.utils

    copydetect.utils.hash = stable_hash  # it looks `hash` up in its globals before the builtins
    return copydetect


NOISE_T = 12  # filtered tokens shorter than this never count as shared (copydetect's k)
GUARANTEE_T = 16  # a match this long is always found (window = GUARANTEE_T - NOISE_T + 1)
COMMON_SHARE = 0.1  # a fingerprint in this share of the submissions is what many write
MIN_FOR_COMMON = 4  # with fewer submissions, "what everybody writes" cannot be told apart
MIN_COMMON_COUNT = 3  # code two submissions share is the very thing to find, never "common"


@dataclass(frozen=True)
class Final:
    """One student's latest submitted code for the exercise in one framework."""

    submission_id: int
    user_id: int
    name: str
    framework: str
    code: str


@dataclass(frozen=True)
class Pair:
    """Two finals that share code beyond what many write.

    The score is the share of the longer file (in tokens, names normalised) that was found in
    the other, counting only uncommon code: a renamed copy of a file full of personal touches
    scores high, two files that differ only in their shared skeleton score low.
    """

    a: Final
    b: Final
    score: float
    shared_a: float
    shared_b: float
    slices_a: tuple[tuple[int, int], ...]
    slices_b: tuple[tuple[int, int], ...]


def finals(*, session: Session, slug: str, place: Place) -> list[Final]:
    """Each student's latest graded 'submit' submission of the exercise, per framework, among
    those made in this request's offering (never a student's from another offering)."""
    rows = session.execute(
        select(
            Submission.id,
            Submission.user_id,
            User.name,
            User.email,
            Submission.framework,
            Submission.code,
        )
        .join(User, User.id == Submission.user_id)
        .where(
            Submission.exercise_slug == slug,
            Submission.mode == "submit",
            Submission.status == "done",
            Submission.purpose == PRACTICE,
            students_here(place),
            work_here(session, Submission.offering_id, place),
        )
        .order_by(Submission.created_at, Submission.id)
    )
    latest = {(r.user_id, r.framework): r for r in rows}
    return [Final(r.id, r.user_id, r.name or r.email, r.framework, r.code) for r in latest.values()]


def _fingerprint(code: str, boilerplate: Sequence[int] = ()) -> CodeFingerprint:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # copydetect warns about code too short to fingerprint
        return _copydetect().CodeFingerprint(
            "submission.py",
            NOISE_T,
            GUARANTEE_T - NOISE_T + 1,
            boilerplate=list(boilerplate),
            fp=io.StringIO(code),
        )


def _slices(found: Any) -> tuple[tuple[int, int], ...]:
    if found.size == 0:
        return ()
    return tuple((int(s), int(e)) for s, e in zip(found[0], found[1], strict=True))


def similar_pairs(
    group: Sequence[Final], *, shared_code: Sequence[str], minimum: float = 0.0
) -> list[Pair]:
    """Every pair of one framework's finals, most similar first (pairs above `minimum`)."""
    boilerplate: set[int] = set()
    for code in shared_code:
        boilerplate |= set(_fingerprint(code).hashes)
    first = [_fingerprint(f.code, sorted(boilerplate)) for f in group]
    if len(group) >= MIN_FOR_COMMON:
        seen = Counter(h for fp in first for h in set(fp.hashes))
        needed = max(MIN_COMMON_COUNT, COMMON_SHARE * len(group))
        boilerplate |= {h for h, n in seen.items() if n >= needed}
        first = [_fingerprint(f.code, sorted(boilerplate)) for f in group]
    pairs = []
    for i in range(len(group)):
        for j in range(i + 1, len(group)):
            if not first[i].hashes & first[j].hashes:
                continue
            overlap, (sim_a, sim_b), (slices_a, slices_b) = _copydetect().compare_files(
                first[i], first[j]
            )
            longer = max(len(first[i].filtered_code), len(first[j].filtered_code), 1)
            score = min(1.0, float(overlap) / longer)
            if score > minimum:
                pairs.append(
                    Pair(
                        group[i],
                        group[j],
                        score,
                        float(sim_a),
                        float(sim_b),
                        _slices(np.asarray(slices_a)),
                        _slices(np.asarray(slices_b)),
                    )
                )
    pairs.sort(key=lambda p: (-p.score, p.a.submission_id, p.b.submission_id))
    return pairs


def by_framework(found: Sequence[Final]) -> dict[str, list[Final]]:
    """Finals grouped by framework: code in NumPy and in PyTorch is never compared."""
    groups: dict[str, list[Final]] = {}
    for final in found:
        groups.setdefault(final.framework, []).append(final)
    return groups


def segments(code: str, slices: Sequence[tuple[int, int]]) -> list[tuple[str, bool]]:
    """The code cut into (text, shared) runs, for a page to mark (escaped by the template)."""
    out: list[tuple[str, bool]] = []
    at = 0
    for start, end in sorted(slices):
        start, end = max(start, at), min(end, len(code))
        if start > at:
            out.append((code[at:start], False))
        if end > start:
            out.append((code[start:end], True))
            at = end
    if at < len(code):
        out.append((code[at:], False))
    return out


@dataclass(frozen=True)
class Comparison:
    """An exercise's pairs per framework, as compared for one set of final submissions."""

    slug: str
    finals: int
    pairs: dict[str, list[Pair]]


_cache: dict[tuple[str, tuple[int, ...]], Comparison] = {}


def compare_exercise(
    *, session: Session, slug: str, shared_code: dict[str, list[str]], place: Place
) -> Comparison:
    """Every framework's pairs for the exercise; the same finals are compared only once.

    Why cached: 300 finals take seconds to compare, and an instructor moves between the list
    and the pairs; a new final submission changes the key, so the list is never stale.
    """
    found = finals(session=session, slug=slug, place=place)
    key = (slug, tuple(sorted(f.submission_id for f in found)))
    cached = _cache.get(key)
    if cached is not None:
        return cached
    pairs = {
        framework: similar_pairs(group, shared_code=shared_code.get(framework, []))
        for framework, group in sorted(by_framework(found).items())
    }
    result = Comparison(slug=slug, finals=len(found), pairs=pairs)
    for old in [k for k in _cache if k[0] == slug]:
        del _cache[old]
    _cache[key] = result
    return result
