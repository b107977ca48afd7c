# The model solution for torch, as shipped in the exercise folder.
import torch


def alibi_bias(num_heads, T):
    """bias[h, i, j] = -m_h * (i - j) for j <= i and -inf for j > i, m_h = 2^(-8(h+1)/H)."""
    num_heads, T = int(num_heads), int(T)
    heads = torch.arange(1, num_heads + 1, dtype=torch.float32)
    slopes = 2.0 ** (-8.0 * heads / num_heads)  # (H,): 2^(-8/H), 2^(-16/H), ...
    positions = torch.arange(T, dtype=torch.float32)
    distance = positions[:, None] - positions[None, :]  # (T, T): query i minus key j
    bias = -slopes[:, None, None] * distance  # (H, T, T)
    future = torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)  # True where j > i
    return bias.masked_fill(future, float("-inf"))
