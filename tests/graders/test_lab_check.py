"""The lab checks the module it asks for, from outputs on the grader's own probes."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import yaml
from torch import nn

from graders import protocol
from graders.lab.lab_check import CHECK_ID, module_tests, probes
from graders.lab.lab_scoring import LabSpec, lab_spec
from graders.lab.positions import Alibi, LearnedTable, Rope, Sinusoidal

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def _spec(slug: str) -> LabSpec:
    meta = yaml.safe_load((EXERCISES / slug / "exercise.yaml").read_text(encoding="utf-8"))
    return lab_spec(meta["experiment"])


ABSOLUTE, RELATIVE = _spec("lab-learned-vs-sinusoidal"), _spec("lab-relative-extrapolation")


def _outputs(spec: LabSpec, make: Callable[[], nn.Module]) -> dict[int, protocol.Result]:
    """What the sandbox would send: a fresh module's output on each probe, or its error."""
    frames: dict[int, protocol.Result] = {}
    for index, (first, second) in enumerate(probes(spec)):
        module = make()
        try:
            with torch.no_grad():
                args = [torch.as_tensor(a) for a in (first, second) if a is not None]
                frames[CHECK_ID + index] = module(*args).numpy()
        except Exception as exc:
            frames[CHECK_ID + index] = protocol.RaisedError(type(exc).__name__, str(exc))
    return frames


class Concatenated(nn.Module):
    """All sines, then all cosines: the layout mistake."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        position = torch.arange(x.shape[1], dtype=torch.float32)[:, None]
        rate = 10000.0 ** (-torch.arange(0, self.d_model, 2, dtype=torch.float32) / self.d_model)
        return x + torch.cat([torch.sin(position * rate), torch.cos(position * rate)], dim=1)


class Clamped(nn.Module):
    """The right table for max_len rows, every later position reusing the last row."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len, self.inner = max_len, Sinusoidal(max_len, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        table = self.inner(torch.zeros(1, self.max_len, x.shape[2]))[0]
        index = torch.arange(x.shape[1]).clamp(max=self.max_len - 1)
        return x + table[index]


class Plain(nn.Module):
    """q k^T / sqrt(d): relative, trivially, but no position at all."""

    def __init__(self, num_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__()
        self.head_dim = head_dim

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)


class AbsoluteBias(Plain):
    """Adds a bias that depends on the key's position: not relative."""

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return super().forward(q, k) + 0.1 * torch.arange(q.shape[-2], dtype=torch.float32)


def _passed(spec: LabSpec, make: Callable[[], nn.Module]) -> list[bool]:
    return [t.passed for t in module_tests(spec, _outputs(spec, make))]


def test_the_sinusoidal_module_passes_and_wrong_ones_are_named() -> None:
    assert _passed(ABSOLUTE, lambda: Sinusoidal(16, 32)) == [True]
    [concatenated] = module_tests(ABSOLUTE, _outputs(ABSOLUTE, lambda: Concatenated(16, 32)))
    assert not concatenated.passed and "concatenated" in concatenated.message
    [clamped] = module_tests(ABSOLUTE, _outputs(ABSOLUTE, lambda: Clamped(16, 32)))
    assert not clamped.passed and "Positions 0 to 15 are right but position 16" in clamped.message
    [refused] = module_tests(ABSOLUTE, _outputs(ABSOLUTE, lambda: LearnedTable(16, 32)))
    assert not refused.passed and "At length 16, position 0 does not get" in refused.message


def test_relative_modules_must_depend_on_the_offset_and_on_it_only() -> None:
    assert _passed(RELATIVE, lambda: Rope(2, 16, 16)) == [True, True]
    assert _passed(RELATIVE, lambda: Alibi(2, 16, 16)) == [True, True]
    assert _passed(RELATIVE, lambda: Plain(2, 16, 16)) == [True, False]
    moved, _ = module_tests(RELATIVE, _outputs(RELATIVE, lambda: AbsoluteBias(2, 16, 16)))
    assert not moved.passed and "depend on i - j only" in moved.message


def test_missing_outputs_fail_the_check() -> None:
    assert [t.passed for t in module_tests(ABSOLUTE, {})] == [False]
    assert [t.passed for t in module_tests(RELATIVE, {})] == [False, False]


def test_the_probes_are_fixed_and_cover_every_length() -> None:
    first, again = probes(ABSOLUTE), probes(ABSOLUTE)
    assert [x.shape[1] for x, _ in first] == [16, 24, 32, 64]
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(first, again, strict=True))
