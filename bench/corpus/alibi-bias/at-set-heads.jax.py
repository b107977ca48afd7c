import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    i = jnp.arange(T)[:, None]
    j = jnp.arange(T)[None, :]
    out = jnp.zeros((num_heads, T, T))
    for h in range(num_heads):
        m = 2.0 ** (-8.0 * (h + 1) / num_heads)
        out = out.at[h].set(jnp.where(j <= i, -m * (i - j), -jnp.inf))
    return out
