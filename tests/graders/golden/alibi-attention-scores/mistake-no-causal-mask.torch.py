import math

import torch


def alibi_attention_scores(q, k):
    heads, seq_len, d = q.shape
    raw = q @ k.transpose(-1, -2) / math.sqrt(d)
    slopes = 2.0 ** (-8.0 * torch.arange(1, heads + 1, dtype=torch.float32) / heads)
    positions = torch.arange(seq_len, dtype=torch.float32)
    distance = (positions[:, None] - positions[None, :]).abs()
    return raw - slopes[:, None, None] * distance
