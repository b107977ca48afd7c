import numpy as np


def alibi_attention_scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Causal attention scores with ALiBi, for every head (no softmax).

    Args:
        q: (H, T, d) float32 array; q[h, i] is head h's query for the token at position i
            (positions start at 0). H is a power of two.
        k: (H, T, d) float32 array; k[h, j] is head h's key for the token at position j.

    Returns:
        (H, T, T) scores: q[h, i] . k[h, j] / sqrt(d) - m_h * (i - j) when j <= i and
        -inf when j > i, where m_h = 2^(-8 * (h + 1) / H).
    """
    # TODO 1: the scaled dot products of every query with every key of the same head.
    # TODO 2: the H slopes m_h and the (T, T) distances i - j (query i, key j).
    # TODO 3: subtract slope * distance, then put -inf where j > i.
    return np.zeros((q.shape[0], q.shape[1], k.shape[1]), dtype=np.float32)  # placeholder
