import jax.numpy as jnp


def merge_heads(x):
    """(B, H, T, d_head) -> (B, T, H * d_head): concatenate the heads along the features."""
    return jnp.concatenate([x[:, h] for h in range(x.shape[1])], axis=-1)
