# Declared mistake: Rewarded distance instead of penalising it
import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    heads = jnp.arange(1, num_heads + 1, dtype=jnp.float32)
    slopes = 2.0 ** (-8.0 * heads / num_heads)
    positions = jnp.arange(T, dtype=jnp.float32)
    distance = positions[:, None] - positions[None, :]
    bias = slopes[:, None, None] * distance
    return jnp.where(distance >= 0, bias, -jnp.inf)
