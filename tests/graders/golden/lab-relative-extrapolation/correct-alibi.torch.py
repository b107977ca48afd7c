import math

import torch
from torch import nn


class RelativeScores(nn.Module):
    """ALiBi: content scores minus a per-head slope times the distance back."""

    def __init__(self, num_heads, head_dim, max_len):
        super().__init__()
        self.scale = 1 / math.sqrt(head_dim)
        slopes = [2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)]
        self.register_buffer("slopes", torch.tensor(slopes))

    def forward(self, q, k):
        t = q.shape[-2]
        pos = torch.arange(t)
        distance = (pos[:, None] - pos[None, :]).clamp(min=0).float()
        return q @ k.transpose(-2, -1) * self.scale - self.slopes[:, None, None] * distance
