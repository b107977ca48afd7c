import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        t = x.shape[1]
        if t > self.max_len:
            raise IndexError(f"sequence of {t} positions, table of {self.max_len}")
        positions = torch.arange(t, device=x.device)
        return x + self.embedding(positions)
