import torch


def padded_attention_weights(scores, lengths, causal):
    """nn.MultiheadAttention's polarity: True where a key is ignored, combined with or."""
    t_q, t_k = scores.shape[-2:]
    key_padding_mask = torch.arange(t_k).expand(len(lengths), t_k) >= lengths.unsqueeze(1)
    ignored = key_padding_mask.view(-1, 1, 1, t_k)
    if causal:
        ignored = ignored | torch.triu(torch.ones(t_q, t_k, dtype=torch.bool), diagonal=1)
    weights = torch.softmax(scores.masked_fill(ignored, torch.finfo(scores.dtype).min), dim=-1)
    return weights
