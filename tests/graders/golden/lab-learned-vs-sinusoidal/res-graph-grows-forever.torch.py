# An autograd graph that grows without end: stopped by the memory limit, said plainly -> memory_limit_exceeded
from torch import nn


class SinusoidalPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()

    def forward(self, x):
        while True:
            x = x * 1.0
