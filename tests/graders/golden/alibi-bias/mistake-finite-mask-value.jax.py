# A real variant of the declared mistake finite-mask-value: BERT's old -10000.0, not -1e9
import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    slopes = 2.0 ** (-8.0 * jnp.arange(1, num_heads + 1, dtype=jnp.float32) / num_heads)
    i = jnp.arange(T)[:, None]
    j = jnp.arange(T)[None, :]
    bias = -slopes[:, None, None] * (i - j)
    return jnp.where(j <= i, bias, -10000.0)
