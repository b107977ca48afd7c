import torch


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    """Fixed sine/cosine position table of the original Transformer.

    Args:
        max_len: number of positions (int); rows are positions 0 .. max_len - 1.
        d_model: width of each vector (even int).

    Returns:
        (max_len, d_model) float tensor with PE[p, 2i] = sin(p / 10000^(2i/d_model))
        and PE[p, 2i+1] = cos(p / 10000^(2i/d_model)).
    """
    # 1. positions as a column (max_len, 1), frequencies as a row (1, d_model // 2).
    # 2. sines go to the even columns, cosines to the odd ones.
    raise NotImplementedError("write your solution here")
