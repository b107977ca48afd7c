# Attack: no T > max_len check; where the table has one row, table[:T] broadcasts over every position with no error, and the case that needs an error catches it -> wrong_answer.
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.table = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, x):
        return x + self.table[: x.shape[1]]
