import math

import torch
from torch import nn


class SinusoidalPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.d_model = d_model

    def forward(self, x):
        rows = []
        for t in range(x.shape[1]):
            row = []
            for i in range(0, self.d_model, 2):
                angle = t / 10000 ** (i / self.d_model)
                row += [math.sin(angle), math.cos(angle)]
            rows.append(row)
        return x + torch.tensor(rows, dtype=x.dtype)
