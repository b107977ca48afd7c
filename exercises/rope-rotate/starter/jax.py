import jax.numpy as jnp


def rope_rotate(x: jnp.ndarray) -> jnp.ndarray:
    """Apply rotary position embeddings (RoPE) to a batch of query vectors.

    Args:
        x: (N, T, d) float32 JAX array; x[n, t] is the query of the token at position t
            (positions start at 0). d is even.

    Returns:
        (N, T, d) array where each interleaved pair (x[..., 2i], x[..., 2i+1]) of the
        token at position t is rotated by the angle t * 10000^(-2i/d).
    """
    # TODO 1: one frequency per pair, theta_i = 10000^(-2i/d) for i = 0 .. d/2 - 1.
    # TODO 2: angles of shape (T, d/2): position t times theta_i.
    # TODO 3: rotate each pair (x[..., 0::2], x[..., 1::2]) by its angle. JAX arrays are
    #         immutable: stack the two rotated halves on a new last axis, then reshape.
    return x  # placeholder: no rotation yet, so only position 0 is right
