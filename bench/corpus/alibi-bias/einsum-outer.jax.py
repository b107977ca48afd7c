import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    slopes = 2.0 ** (-8.0 * jnp.arange(1, num_heads + 1) / num_heads)
    pos = jnp.arange(T, dtype=jnp.float32)
    dist = pos[None, :] - pos[:, None]
    bias = jnp.einsum("h,ij->hij", slopes, dist)
    return jnp.where(dist <= 0, bias, -jnp.inf)
