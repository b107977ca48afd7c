# Declared mistake: Paired coordinate i with i + d/2 (the "rotate half" layout)
import torch


def rope_rotate(x):
    _, seq_len, d = x.shape
    half = d // 2
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    angles = torch.arange(seq_len, dtype=torch.float32)[:, None] * theta[None, :]
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1)
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1)
    first, second = x[..., :half], x[..., half:]
    rotated = torch.cat([-second, first], dim=-1)
    return x * cos + rotated * sin
