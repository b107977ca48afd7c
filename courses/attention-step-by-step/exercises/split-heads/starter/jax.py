import jax.numpy as jnp


def split_heads(x: jnp.ndarray, num_heads: int) -> jnp.ndarray:
    """Give each attention head its own slice of the model width.

    Args:
        x: (B, T, d_model) float32 JAX array, one d_model-wide vector per token.
        num_heads: a Python int H that divides d_model; d_head = d_model // H.

    Returns:
        (B, H, T, d_head): out[b, h, t] is x[b, t, h*d_head : (h+1)*d_head].
    """
    b, t, d_model = x.shape
    # TODO 1: view the last axis as (H, d_head), giving (B, T, H, d_head).
    # TODO 2: move the head axis in front of the sequence axis: (B, H, T, d_head).
    return jnp.zeros((b, num_heads, t, d_model // num_heads), dtype=jnp.float32)  # placeholder
