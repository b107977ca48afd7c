import jax
import jax.numpy as jnp


def scaled_dot_product_attention(q, k, v):
    scores = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(v.shape[-1])
    return jax.nn.softmax(scores, axis=-1) @ v
