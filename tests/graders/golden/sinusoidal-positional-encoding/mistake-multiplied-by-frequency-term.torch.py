# Known mistake 'multiplied-by-frequency-term' (copied from mistakes.yaml): Multiplied the position by 10000^(2i/d) instead of dividing.
import torch


def sinusoidal_positional_encoding(max_len, d_model):
    positions = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angles = positions * torch.pow(10000.0, two_i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
