# Declared mistake: Turned every pair by the same angle
import torch


def rope_rotate(x):
    _, seq_len, d = x.shape
    angles = torch.arange(seq_len, dtype=torch.float32)[:, None].expand(seq_len, d // 2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out
