import torch


def causal_attention_weights(scores):
    """Softmax over the keys, with every key after the query set to -inf first."""
    t = scores.shape[-1]
    future = torch.ones(t, t, dtype=torch.bool).triu(diagonal=1)  # True where key j > query i
    return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
