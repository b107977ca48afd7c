# Sines and cosines concatenated instead of interleaved: it may train, but the module check names the layout -> wrong_answer
import math

import torch
from torch import nn


class SinusoidalPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.d_model = d_model

    def forward(self, x):
        position = torch.arange(x.shape[1], dtype=torch.float32)[:, None]
        rate = torch.exp(
            torch.arange(0, self.d_model, 2, dtype=torch.float32)
            * (-math.log(10000.0) / self.d_model)
        )
        angle = position * rate
        return x + torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)
