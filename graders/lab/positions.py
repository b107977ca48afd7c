"""The platform's own position schemes, trained by the lab as references next to students' code.

Trusted code, run outside the sandbox (graders/lab/experiment_reference.py). Absolute schemes are
built as `cls(max_len, d_model)` and map x (B, T, d) to x plus positions; relative ones as
`cls(num_heads, head_dim, max_len)` and map q, k (B, H, T, hd) to attention scores (B, H, T, T).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from graders.inside.experiment import ABSOLUTE, RELATIVE


class NoPositions(nn.Module):
    """No position information at all: only causal masking can hint at order."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Unchanged."""
        return x


class LearnedTable(nn.Module):
    """One trainable row per position; a longer sequence is refused, it has no rows for it."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.table = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x + table[:T]; raises for T > max_len."""
        length = x.shape[1]
        if length > self.max_len:
            raise ValueError(
                f"the table has {self.max_len} rows, so position {self.max_len} "
                f"(of a sequence of {length}) has no row"
            )
        return x + self.table[:length]


class LearnedSpareRows(LearnedTable):
    """A learned table with rows to spare (4x the training length), as BERT-style tables have.

    Training at max_len tokens updates only the first max_len rows; the rest keep their random
    start, so a longer sequence is answered with rows the model has never seen, not refused.
    """

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__(4 * max_len, d_model)


def sinusoids(length: int, d_model: int) -> torch.Tensor:
    """The fixed sin/cos table of 'Attention Is All You Need', for any length."""
    position = torch.arange(length, dtype=torch.float32)[:, None]
    rate = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)
    )
    table = torch.zeros(length, d_model)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)
    return table


class Sinusoidal(nn.Module):
    """Fixed sinusoids, computed for whatever length arrives."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x + sinusoids(T)."""
        return x + sinusoids(x.shape[1], self.d_model)


class Rope(nn.Module):
    """Rotary embeddings: rotate query and key pairs by angles proportional to position."""

    def __init__(self, num_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__()
        self.head_dim = head_dim

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """Scores of the rotated q and k, scaled by sqrt(head_dim)."""
        length, half = q.shape[-2], self.head_dim // 2
        rate = 10000.0 ** (-torch.arange(half, dtype=torch.float32) / half)
        angle = torch.arange(length, dtype=torch.float32)[:, None] * rate
        cos, sin = angle.cos(), angle.sin()

        def rotate(t: torch.Tensor) -> torch.Tensor:
            a, b = t[..., :half], t[..., half:]
            return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)

        return rotate(q) @ rotate(k).transpose(-2, -1) / math.sqrt(self.head_dim)


def alibi_slopes(num_heads: int) -> torch.Tensor:
    """The geometric slopes 2^(-8/n), 2^(-16/n), ... of the ALiBi paper."""
    return torch.tensor([2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)])


class Alibi(nn.Module):
    """ALiBi: content scores minus a per-head slope times the distance to the key."""

    def __init__(self, num_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__()
        self.head_dim = head_dim
        self.register_buffer("slopes", alibi_slopes(num_heads))

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """q k^T / sqrt(hd) - slope * (i - j)."""
        length = q.shape[-2]
        pos = torch.arange(length)
        distance = (pos[:, None] - pos[None, :]).clamp(min=0).float()
        slopes: torch.Tensor = self.slopes  # type: ignore[assignment]
        bias = -slopes[:, None, None] * distance
        return q @ k.transpose(-2, -1) / math.sqrt(self.head_dim) + bias


SCHEMES: dict[str, tuple[str, Callable[..., nn.Module]]] = {
    "none": (ABSOLUTE, NoPositions),
    "learned": (ABSOLUTE, LearnedTable),
    "learned-spare": (ABSOLUTE, LearnedSpareRows),
    "sinusoidal": (ABSOLUTE, Sinusoidal),
    "rope": (RELATIVE, Rope),
    "alibi": (RELATIVE, Alibi),
}
"""Scheme name -> (the slot it fills, its factory)."""
