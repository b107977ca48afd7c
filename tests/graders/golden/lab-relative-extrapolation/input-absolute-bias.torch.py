# Scores plus a bias that grows with the key's position, not with the distance: the relative check fails -> wrong_answer
import math

import torch
from torch import nn


class RelativeScores(nn.Module):
    def __init__(self, num_heads, head_dim, max_len):
        super().__init__()
        self.head_dim = head_dim

    def forward(self, q, k):
        bias = 0.5 * torch.arange(k.shape[-2], dtype=torch.float32)
        return q @ k.transpose(-2, -1) / math.sqrt(self.head_dim) + bias
