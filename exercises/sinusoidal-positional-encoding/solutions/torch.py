import math

import torch


def sinusoidal_positional_encoding(max_len, d_model):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same angle)."""
    max_len, d_model = int(max_len), int(d_model)
    positions = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)  # (d_model // 2,)
    inv_freq = torch.exp(two_i * (-math.log(10000.0) / d_model))  # 1 / 10000^(2i/d)
    angles = positions * inv_freq  # (max_len, d_model // 2)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
