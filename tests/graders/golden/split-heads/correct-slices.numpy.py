import numpy as np


def split_heads(x, num_heads):
    """Cut the features into blocks and stack the blocks along a new head axis."""
    d_head = x.shape[-1] // num_heads
    blocks = [x[:, :, h * d_head : (h + 1) * d_head] for h in range(num_heads)]
    return np.stack(blocks, axis=1)
