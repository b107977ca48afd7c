import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.weight = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, x):
        t = x.size(1)
        if t > self.max_len:
            raise ValueError(f"T={t} is longer than max_len={self.max_len}")
        return x + self.weight[:t].unsqueeze(0)
