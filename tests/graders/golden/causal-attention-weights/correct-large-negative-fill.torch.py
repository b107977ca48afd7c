import torch


def causal_attention_weights(scores):
    """Mask with the most negative float32 instead of -inf; the weights are the same."""
    t = scores.shape[-1]
    allowed = torch.tril(torch.ones(t, t, dtype=torch.bool))
    masked = torch.where(allowed, scores, torch.finfo(scores.dtype).min)
    return torch.softmax(masked, dim=-1)
