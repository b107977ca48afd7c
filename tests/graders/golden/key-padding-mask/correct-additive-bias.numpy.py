import numpy as np


def padded_attention_weights(scores, lengths, causal):
    """Hugging Face style: a 0 / most-negative additive bias instead of -inf."""
    t_q, t_k = scores.shape[-2:]
    attention_mask = (np.arange(t_k)[None, :] < lengths[:, None]).astype(np.float32)  # 1 = real
    bias = (1.0 - attention_mask)[:, None, None, :] * np.finfo(np.float32).min
    if causal:
        bias = bias + np.triu(np.full((t_q, t_k), np.finfo(np.float32).min), k=1)
    biased = np.maximum(scores + bias, np.finfo(np.float32).min)  # two minima would be -inf
    biased = biased - biased.max(axis=-1, keepdims=True)
    weights = np.exp(biased)
    return weights / weights.sum(axis=-1, keepdims=True)
