import numpy as np


def merge_heads(x):
    """(B, H, T, d_head) -> (B, T, H * d_head): move heads after time, then join the last axes."""
    batch, heads, seq, d_head = x.shape
    x = np.transpose(x, (0, 2, 1, 3))  # (B, T, H, d_head)
    return x.reshape(batch, seq, heads * d_head)  # reshape copies: the transpose is not contiguous
