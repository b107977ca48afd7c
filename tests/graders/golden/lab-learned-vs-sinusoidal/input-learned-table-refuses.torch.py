# A learned table instead of sinusoids: right at 16, refuses 24 (no row); the module check and the 1.5x goal fail -> wrong_answer
import torch
from torch import nn


class SinusoidalPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.table = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, x):
        if x.shape[1] > self.table.shape[0]:
            raise ValueError(f"no row for position {self.table.shape[0]}")
        return x + self.table[: x.shape[1]]
