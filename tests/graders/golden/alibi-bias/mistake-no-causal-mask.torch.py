# Declared mistake: Left out the causal mask
import torch


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    heads = torch.arange(1, num_heads + 1, dtype=torch.float32)
    slopes = 2.0 ** (-8.0 * heads / num_heads)
    positions = torch.arange(T, dtype=torch.float32)
    distance = (positions[:, None] - positions[None, :]).abs()
    return -slopes[:, None, None] * distance
