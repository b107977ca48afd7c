# Known mistake 'single-row-instead-of-slice' (copied from mistakes.yaml): Added table[T], one row, instead of table[:T]; class exercises do not name misconceptions.
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.table = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.max_len:
            raise ValueError(f"sequence length {seq_len} exceeds max_len {self.max_len}")
        return x + self.table[seq_len]
