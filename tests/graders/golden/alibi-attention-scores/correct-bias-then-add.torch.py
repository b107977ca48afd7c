import torch


def alibi_attention_scores(q, k):
    """Build the (H, T, T) ALiBi bias with its -inf mask first, then add it to the scores."""
    heads, seq_len, d = q.shape
    slopes = torch.tensor([2.0 ** (-8.0 * h / heads) for h in range(1, heads + 1)])
    pos = torch.arange(seq_len)
    distance = (pos.view(-1, 1) - pos.view(1, -1)).float()  # i - j
    bias = -slopes.view(-1, 1, 1) * distance
    bias = torch.where(distance < 0, torch.tensor(float("-inf")), bias)
    return torch.einsum("hid,hjd->hij", q, k) / d**0.5 + bias
