import torch


def padded_attention_weights(scores, lengths, causal):
    """Softmax over the keys, with padding keys (and future keys if causal) set to -inf first."""
    t_q, t_k = scores.shape[-2:]
    key = torch.arange(t_k)
    padding = key[None, :] >= lengths[:, None]  # (B, Tk): True for the keys to hide
    hidden = padding[:, None, None, :]  # (B, 1, 1, Tk), as nn.MultiheadAttention's key_padding_mask
    if causal:
        future = torch.ones(t_q, t_k, dtype=torch.bool).triu(diagonal=1)  # key j > query i
        hidden = hidden | future  # either mask hides the key
    return torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
