import torch


def sinusoidal_positional_encoding(max_len, d_model):
    p = torch.arange(max_len, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angles = p / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d_model)
    return torch.stack((angles.sin(), angles.cos()), dim=-1).flatten(1)
