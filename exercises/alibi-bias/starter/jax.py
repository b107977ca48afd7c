import jax.numpy as jnp


def alibi_bias(num_heads: int, T: int) -> jnp.ndarray:
    """The causal ALiBi bias that each attention head adds to its scores.

    Args:
        num_heads: number of heads H (a power of two; may arrive as a float such as 8.0).
        T: sequence length (may arrive as a float such as 6.0).

    Returns:
        (H, T, T) float32 array with bias[h, i, j] = -m_h * (i - j) when j <= i and
        -inf when j > i, where m_h = 2^(-8 * (h + 1) / H).
    """
    num_heads, T = int(num_heads), int(T)
    # TODO 1: the H slopes m_h = 2^(-8 * (h + 1) / H) for h = 0 .. H - 1.
    # TODO 2: the (T, T) distances i - j (query i, key j).
    # TODO 3: bias = -slope * distance, with -inf where j > i (jnp.where helps).
    return jnp.zeros((num_heads, T, T))  # placeholder
