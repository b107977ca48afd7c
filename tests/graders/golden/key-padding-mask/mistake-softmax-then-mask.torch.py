import torch


def padded_attention_weights(scores, lengths, causal):
    t_q, t_k = scores.shape[-2:]
    real = (torch.arange(t_k)[None, :] < lengths[:, None])[:, None, None, :]
    if causal:
        future = torch.ones(t_q, t_k, dtype=torch.bool).triu(diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) * real
