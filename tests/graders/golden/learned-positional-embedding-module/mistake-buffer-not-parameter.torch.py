# Known mistake 'buffer-not-parameter' (copied from mistakes.yaml): Registered the table as a buffer; class exercises do not name misconceptions.
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.register_buffer("table", torch.randn(max_len, d_model) * 0.02)

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.max_len:
            raise ValueError(f"sequence length {seq_len} exceeds max_len {self.max_len}")
        return x + self.table[:seq_len]
