import math

import torch


def scaled_dot_product_attention(q, k, v):
    """softmax(q k^T / sqrt(d_k)) v, one row of weights per query."""
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (B, Tq, Tk)
    weights = torch.softmax(scores, dim=-1)  # over the keys; torch subtracts the maximum itself
    return weights @ v  # (B, Tq, d_v)
