# A forward pass that never ends (and allocates nothing): stopped at the experiment's own 45 s limit -> time_limit_exceeded
import torch
from torch import nn


class SinusoidalPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()

    def forward(self, x):
        with torch.no_grad():
            while True:
                y = x * 1.0
        return y
