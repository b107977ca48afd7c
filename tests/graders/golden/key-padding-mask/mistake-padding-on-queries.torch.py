import torch


def padded_attention_weights(scores, lengths, causal):
    t_q, t_k = scores.shape[-2:]
    padded = torch.arange(t_q)[None, :] >= lengths[:, None]
    hidden = padded[:, None, :, None]
    if causal:
        hidden = hidden | torch.ones(t_q, t_k, dtype=torch.bool).triu(diagonal=1)
    return torch.softmax(scores.masked_fill(hidden, -1e9), dim=-1)
