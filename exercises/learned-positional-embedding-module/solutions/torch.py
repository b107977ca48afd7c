import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    """Adds a trainable vector per position to a (N, T, d_model) batch."""

    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = int(max_len)
        self.table = nn.Parameter(torch.empty(self.max_len, int(d_model)))
        nn.init.normal_(self.table, mean=0.0, std=0.02)

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.max_len:
            raise ValueError(f"sequence length {seq_len} exceeds max_len {self.max_len}")
        return x + self.table[:seq_len]  # (T, d_model) broadcasts over the batch
