import numpy as np


def causal_attention_weights(scores: np.ndarray) -> np.ndarray:
    """Attention weights of a decoder: softmax over the keys after a causal mask.

    Args:
        scores: (B, H, T, T) float32 array, already scaled; scores[b, h, i, j] is the
            score of query i against key j in head h of sequence b.

    Returns:
        (B, H, T, T) weights: row i is a softmax over keys 0..i, and every key j > i
        gets exactly 0.
    """
    # TODO 1: build a (T, T) mask that is True where key j comes after query i.
    # TODO 2: set those scores to -inf (broadcast over batch and heads).
    # TODO 3: a stable softmax over the last axis.
    return np.zeros(scores.shape, dtype=np.float32)  # placeholder
