import torch


def causal_attention_weights(scores):
    t = scores.shape[-1]
    allowed = torch.ones(t, t, dtype=torch.bool).tril(diagonal=-1)
    masked = scores.masked_fill(~allowed, -1e9)
    return torch.softmax(masked, dim=-1)
