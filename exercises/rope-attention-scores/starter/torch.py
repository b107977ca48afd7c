import torch


def rope_attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Attention scores between RoPE-rotated queries and keys (no mask, no softmax).

    Args:
        q: (T, d) float32 tensor; q[m] is the query of the token at position m
            (positions start at 0). d is even.
        k: (T, d) float32 tensor; k[n] is the key of the token at position n.

    Returns:
        (T, T) scores s[m, n] = <R_m q[m], R_n k[n]> / sqrt(d), where R_t turns each
        interleaved pair (2i, 2i+1) by the angle t * 10000^(-2i/d).
    """
    # TODO 1: rotate every query: pair (q[:, 2i], q[:, 2i+1]) of row m turns by m * theta_i.
    # TODO 2: rotate every key the same way, with its own position n.
    # TODO 3: dot every rotated query with every rotated key, then divide by sqrt(d).
    return torch.zeros(q.shape[0], k.shape[0])  # placeholder
