import math

import torch
from torch import nn


class RelativeScores(nn.Module):
    """Turns one layer's queries and keys into attention scores, with positions."""

    def __init__(self, num_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__()
        self.num_heads, self.head_dim = num_heads, head_dim

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """q, k: (B, H, T, head_dim). Returns scores (B, H, T, T); the lab masks and softmaxes.

        As given, the scores carry no position at all. Rotate q and k (RoPE), or add a
        distance penalty per head (ALiBi), so that the model knows how far back each key is.
        """
        return q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
