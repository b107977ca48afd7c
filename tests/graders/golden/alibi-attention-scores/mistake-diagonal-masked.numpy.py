# Known mistake 'diagonal-masked' (copied from mistakes.yaml): Masked the diagonal too (each query hidden from itself).
import numpy as np


def alibi_attention_scores(q, k):
    heads, seq_len, d = q.shape
    raw = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    slopes = 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)
    positions = np.arange(seq_len)
    distance = positions[:, None] - positions[None, :]
    scores = raw - slopes[:, None, None] * distance
    return np.where(distance > 0, scores, -np.inf)
