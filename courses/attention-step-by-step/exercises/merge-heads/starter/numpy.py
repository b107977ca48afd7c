import numpy as np


def merge_heads(x: np.ndarray) -> np.ndarray:
    """Put the outputs of all heads side by side again, one d_model-wide row per token.

    Args:
        x: (B, H, T, d_head) float32 array, the attention output of each head.

    Returns:
        (B, T, H * d_head): out[b, t, h*d_head : (h+1)*d_head] is x[b, h, t].
    """
    b, h, t, d_head = x.shape
    # TODO 1: move the head axis behind the sequence axis: (B, T, H, d_head).
    # TODO 2: join the last two axes into one of width H * d_head.
    return np.zeros((b, t, h * d_head), dtype=np.float32)  # placeholder
