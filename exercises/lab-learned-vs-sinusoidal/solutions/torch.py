import math

import torch
from torch import nn


class SinusoidalPositions(nn.Module):
    """Adds the fixed sin/cos position vectors to a (B, T, d_model) batch, for any T."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model  # max_len is not needed: sinusoids exist for every position

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        position = torch.arange(length, dtype=torch.float32)[:, None]
        rate = torch.exp(
            torch.arange(0, self.d_model, 2, dtype=torch.float32)
            * (-math.log(10000.0) / self.d_model)
        )
        table = torch.zeros(length, self.d_model)
        table[:, 0::2] = torch.sin(position * rate)
        table[:, 1::2] = torch.cos(position * rate)
        return x + table
