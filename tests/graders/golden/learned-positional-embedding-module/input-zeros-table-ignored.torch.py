# Attack: a zero table that forward never adds (returns x unchanged); the grader sets the table to its own values before forward, so the missing addition shows -> wrong_answer.
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.table = nn.Parameter(torch.zeros(max_len, d_model))

    def forward(self, x):
        if x.shape[1] > self.max_len:
            raise ValueError("sequence longer than the table")
        return x
