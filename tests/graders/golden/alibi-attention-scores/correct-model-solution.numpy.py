import numpy as np


def alibi_attention_scores(q, k):
    """scores[h, i, j] = q_i . k_j / sqrt(d) - m_h * (i - j) for j <= i, -inf for j > i."""
    q, k = np.asarray(q), np.asarray(k)
    heads, seq_len, d = q.shape
    raw = np.einsum("hid,hjd->hij", q, k) / np.sqrt(d)  # (H, T, T): every query with every key
    slopes = 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)  # (H,): 2^(-8/H), 2^(-16/H), ...
    positions = np.arange(seq_len)
    distance = positions[:, None] - positions[None, :]  # (T, T): query i minus key j
    scores = raw - slopes[:, None, None] * distance  # the further back the key, the lower
    return np.where(distance >= 0, scores, -np.inf)  # keys after the query are masked out
