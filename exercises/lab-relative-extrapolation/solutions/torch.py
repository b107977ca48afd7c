import math

import torch
from torch import nn


class RelativeScores(nn.Module):
    """Rotary position embeddings: attention scores of rotated queries and keys."""

    def __init__(self, num_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__()
        self.head_dim = head_dim

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        length, half = q.shape[-2], self.head_dim // 2
        rate = 10000.0 ** (-torch.arange(half, dtype=torch.float32) / half)
        angle = torch.arange(length, dtype=torch.float32)[:, None] * rate  # (T, hd/2)
        cos, sin = angle.cos(), angle.sin()

        def rotate(t: torch.Tensor) -> torch.Tensor:
            a, b = t[..., :half], t[..., half:]
            return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)

        return rotate(q) @ rotate(k).transpose(-2, -1) / math.sqrt(self.head_dim)
