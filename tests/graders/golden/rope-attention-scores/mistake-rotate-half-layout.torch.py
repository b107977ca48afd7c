import math

import torch


def rotate(x):
    seq_len, d = x.shape
    half = d // 2
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    angles = torch.arange(seq_len, dtype=torch.float32)[:, None] * theta[None, :]
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1)
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1)
    turned = torch.cat([-x[:, half:], x[:, :half]], dim=-1)
    return x * cos + turned * sin


def rope_attention_scores(q, k):
    d = q.shape[-1]
    return rotate(q) @ rotate(k).T / math.sqrt(d)
