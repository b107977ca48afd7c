# A real variant of the declared mistake finite-mask-value: masked_fill with finfo.min, not -1e9
import math

import torch


def alibi_attention_scores(q, k):
    heads, seq_len, d = q.shape
    raw = q @ k.transpose(-1, -2) / math.sqrt(d)
    slopes = 2.0 ** (-8.0 * torch.arange(1, heads + 1, dtype=raw.dtype) / heads)
    positions = torch.arange(seq_len)
    distance = (positions[:, None] - positions[None, :]).to(raw.dtype)
    scores = raw - slopes[:, None, None] * distance
    future = torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool), diagonal=1)
    return scores.masked_fill(future, torch.finfo(scores.dtype).min)
