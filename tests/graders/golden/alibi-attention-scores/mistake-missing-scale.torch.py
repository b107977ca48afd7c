# Known mistake 'missing-scale' (copied from mistakes.yaml): Forgot to divide q . k by sqrt(d).
import torch


def alibi_attention_scores(q, k):
    heads, seq_len, _ = q.shape
    raw = q @ k.transpose(-1, -2)
    slopes = 2.0 ** (-8.0 * torch.arange(1, heads + 1, dtype=torch.float32) / heads)
    positions = torch.arange(seq_len, dtype=torch.float32)
    distance = positions[:, None] - positions[None, :]
    scores = raw - slopes[:, None, None] * distance
    future = torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool), diagonal=1)
    return scores.masked_fill(future, float("-inf"))
