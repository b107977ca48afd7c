# Style: a lower-triangular mask and jnp.where, slopes from a geometric sequence.
import jax.numpy as jnp


def alibi_bias(num_heads, T):
    heads, length = int(num_heads), int(T)
    ratio = 2.0 ** (-8.0 / heads)
    slopes = ratio ** jnp.arange(1, heads + 1, dtype=jnp.float32)  # m_h = 2^(-8(h+1)/H)
    i = jnp.arange(length)[:, None]
    j = jnp.arange(length)[None, :]
    bias = -slopes[:, None, None] * (i - j).astype(jnp.float32)
    return jnp.where(j <= i, bias, -jnp.inf)
