import numpy as np


def split_heads(x, num_heads):
    """(B, T, d_model) -> (B, H, T, d_head): cut the last axis, then move heads before time."""
    batch, seq, d_model = x.shape
    d_head = d_model // num_heads
    x = x.reshape(batch, seq, num_heads, d_head)  # features h*d_head.. go to head h
    return np.transpose(x, (0, 2, 1, 3))  # (B, H, T, d_head)
