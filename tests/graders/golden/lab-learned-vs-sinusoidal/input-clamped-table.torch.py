# A 16-row sinusoid table that clamps later positions to its last row: no refusal, but the module check catches it -> wrong_answer
import math

import torch
from torch import nn


class SinusoidalPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        position = torch.arange(max_len, dtype=torch.float32)[:, None]
        rate = torch.exp(
            torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)
        )
        table = torch.zeros(max_len, d_model)
        table[:, 0::2] = torch.sin(position * rate)
        table[:, 1::2] = torch.cos(position * rate)
        self.register_buffer("table", table)

    def forward(self, x):
        index = torch.arange(x.shape[1]).clamp(max=self.table.shape[0] - 1)
        return x + self.table[index]
