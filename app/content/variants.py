"""Automatic wrong variants of each exercise's model solution: tests that test the tests.

Each variant wraps the model solution so that its answer is wrong in one typical way a student's
could be. The real grader must reject every one of them; a variant accepted by every case means
the cases cannot tell that wrong answer from the right one, and `validate` reports a problem.
The wrapped solution computes the right answer first, then spoils it in plain NumPy (the harness
accepts NumPy arrays from every framework), so a variant costs no new JAX compilation.

A variant that does not apply to an output (swapping the axes of a 1-D output, for instance)
raises instead, so it is rejected and tells nothing about the tests either way.
"""

from __future__ import annotations

from dataclasses import dataclass

# name -> (what a student would have done, NumPy body turning `out` into the wrong answer, the
# least number of axes the output needs for it to mean anything)
VARIANTS: dict[str, tuple[str, str, int]] = {
    "zeros": ("returns zeros of the right shape", "out = np.zeros_like(out)", 1),
    "input-unchanged": (
        "returns its first input unchanged",
        "out = np.asarray(_first_array(args, kwargs), dtype=out.dtype)",
        1,
    ),
    "transposed": ("swaps the last two axes", "out = np.swapaxes(out, -1, -2)", 2),
    "first-row-broadcast": (
        "gives every position the first position's values",
        "out = np.broadcast_to(out[..., :1, :], out.shape).copy()",
        2,
    ),
    "positions-off-by-one": (
        "shifts every position by one (1-based positions)",
        "out = np.roll(out, 1, axis=-2)",
        2,
    ),
    "float16": (
        "computes in float16",
        "out = out.astype(np.float16).astype(out.dtype)",
        1,
    ),
}

PRELUDE = """

import numpy as _np_variant


def _as_numpy(value):
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return _np_variant.asarray(value)


def _first_array(args, kwargs):
    for value in [*args, *kwargs.values()]:
        if hasattr(value, "shape") and len(getattr(value, "shape", ())) > 0:
            return _as_numpy(value)
    raise ValueError("no array argument")


def _spoil(out, args, kwargs):
    np = _np_variant
    out = _as_numpy(out)
    if out.ndim < {min_ndim}:
        raise ValueError("variant not applicable to this output")  # rejected: tells nothing
    {body}
    return out
"""

FUNCTION = """
_right = {entry}


def {entry}(*args, **kwargs):
    return _spoil(_right(*args, **kwargs), args, kwargs)
"""

CLASS = """
_right_forward = {entry}.forward


def _wrong_forward(self, *args, **kwargs):
    return _spoil(_right_forward(self, *args, **kwargs), args, kwargs)


{entry}.forward = _wrong_forward
"""


# Class exercises only: a table of zeros that forward never adds (the input comes back as it
# went in); right on every case if the module's own table were used to judge it.
ZERO_TABLE_IDENTITY = """
import torch as _torch_variant

_right_init = {entry}.__init__
_right_forward = {entry}.forward


def _zero_init(self, *args, **kwargs):
    _right_init(self, *args, **kwargs)
    with _torch_variant.no_grad():
        for parameter in self.parameters():
            parameter.zero_()


def _identity_forward(self, x):
    _right_forward(self, x)  # keeps its length check
    return x


{entry}.__init__ = _zero_init
{entry}.forward = _identity_forward
"""


@dataclass(frozen=True)
class Variant:
    """One wrong variant of a model solution, ready to grade."""

    name: str
    description: str
    min_ndim: int
    code: str


def variants(*, solution: str, entry: str, kind: str) -> list[Variant]:
    """Every variant of `solution` (a file defining function or class `entry`)."""
    found = []
    for name, (description, body, min_ndim) in VARIANTS.items():
        wrapper = (CLASS if kind == "class" else FUNCTION).format(entry=entry)
        prelude = PRELUDE.format(min_ndim=min_ndim, body=body)
        found.append(Variant(name, description, min_ndim, solution + prelude + wrapper))
    if kind == "class":
        code = solution + "\n" + ZERO_TABLE_IDENTITY.format(entry=entry)
        description = "keeps a table of zeros and returns its input unchanged"
        found.append(Variant("zero-table-identity", description, 1, code))
    return found
