import torch


def scaled_dot_product_attention(q, k, v):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / d_k
    return torch.softmax(scores, dim=-1) @ v
