import jax.numpy as jnp


def merge_heads(x):
    """Swap heads and time, then join the last two axes."""
    batch, heads, seq, d_head = x.shape
    return jnp.swapaxes(x, 1, 2).reshape(batch, seq, heads * d_head)
