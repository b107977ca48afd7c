# NaN position vectors: the loss is NaN at the first step; a clear report, not a crash -> wrong_answer
import torch
from torch import nn


class SinusoidalPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()

    def forward(self, x):
        return x + torch.sqrt(torch.full_like(x, -1.0))
