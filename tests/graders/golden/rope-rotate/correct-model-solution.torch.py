# The model solution for torch, as shipped in the exercise folder.
import torch


def rope_rotate(x):
    """Rotate pair (2i, 2i+1) of the token at position t by the angle t * 10000^(-2i/d)."""
    _, seq_len, d = x.shape
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)  # (d/2,)
    angles = torch.arange(seq_len, dtype=torch.float32)[:, None] * theta[None, :]  # (T, d/2)
    # Repeat each angle twice (a, a, b, b, ...) so column 2i and 2i+1 share the angle of pair i.
    cos = torch.cos(angles).repeat_interleave(2, dim=-1)  # (T, d)
    sin = torch.sin(angles).repeat_interleave(2, dim=-1)  # (T, d)
    # Partner of each element: (-x1, x0, -x3, x2, ...).
    even, odd = x[..., 0::2], x[..., 1::2]
    partner = torch.stack([-odd, even], dim=-1).reshape(x.shape)
    return x * cos + partner * sin
