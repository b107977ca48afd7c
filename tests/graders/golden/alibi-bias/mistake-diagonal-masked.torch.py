# Known mistake 'diagonal-masked' (copied from mistakes.yaml): Masked the diagonal too (each query hidden from itself).
import torch


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    heads = torch.arange(1, num_heads + 1, dtype=torch.float32)
    slopes = 2.0 ** (-8.0 * heads / num_heads)
    positions = torch.arange(T, dtype=torch.float32)
    distance = positions[:, None] - positions[None, :]
    bias = -slopes[:, None, None] * distance
    future = torch.ones(T, T, dtype=torch.bool).triu()
    return bias.masked_fill(future, float("-inf"))
