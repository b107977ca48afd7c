# Known mistake 'exponent-uses-i' (copied from mistakes.yaml): Used i instead of 2i in the exponent.
import torch


def sinusoidal_positional_encoding(max_len, d_model):
    positions = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    i = torch.arange(d_model // 2, dtype=torch.float32)
    angles = positions / torch.pow(10000.0, i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
