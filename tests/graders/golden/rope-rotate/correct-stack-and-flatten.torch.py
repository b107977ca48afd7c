# Style: rotate the two halves of each pair separately, then interleave with stack + flatten.
import torch


def rope_rotate(x):
    x = torch.as_tensor(x, dtype=torch.float32)
    t, d = x.shape[1], x.shape[2]
    exponent = torch.arange(0, d, 2, dtype=torch.float32) / d
    angle = torch.arange(t, dtype=torch.float32)[:, None] / (10000.0**exponent)[None, :]
    a, b = x[..., ::2], x[..., 1::2]
    first = a * torch.cos(angle) - b * torch.sin(angle)
    second = a * torch.sin(angle) + b * torch.cos(angle)
    return torch.stack((first, second), dim=-1).flatten(start_dim=-2)
