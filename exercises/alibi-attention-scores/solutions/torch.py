import math

import torch


def alibi_attention_scores(q, k):
    """scores[h, i, j] = q_i . k_j / sqrt(d) - m_h * (i - j) for j <= i, -inf for j > i."""
    heads, seq_len, d = q.shape
    raw = q @ k.transpose(-1, -2) / math.sqrt(d)  # (H, T, T)
    slopes = 2.0 ** (-8.0 * torch.arange(1, heads + 1, dtype=torch.float32) / heads)  # (H,)
    positions = torch.arange(seq_len, dtype=torch.float32)
    # Key position minus query position: 0 on the diagonal, -1 one step back, -2 two steps...
    behind = positions[None, :] - positions[:, None]  # (T, T)
    scores = raw + slopes.view(heads, 1, 1) * behind
    future = torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool), diagonal=1)  # j > i
    return scores.masked_fill(future, float("-inf"))
