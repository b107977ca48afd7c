import jax.numpy as jnp


def _rotate(x):
    """Turn pair (2i, 2i+1) of the row at position t by the angle t * 10000^(-2i/d)."""
    seq_len, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)  # (d/2,)
    angles = jnp.arange(seq_len, dtype=jnp.float32)[:, None] * theta[None, :]  # (T, d/2)
    cos = jnp.repeat(jnp.cos(angles), 2, axis=-1)  # (T, d): c0, c0, c1, c1, ...
    sin = jnp.repeat(jnp.sin(angles), 2, axis=-1)
    # Partner of each coordinate inside its pair: (-x1, x0, -x3, x2, ...).
    partner = jnp.stack([-x[:, 1::2], x[:, 0::2]], axis=-1).reshape(x.shape)
    return x * cos + partner * sin


def rope_attention_scores(q, k):
    """s[m, n] = <R_m q_m, R_n k_n> / sqrt(d): rotate queries and keys, then dot them."""
    d = q.shape[-1]
    return _rotate(q) @ _rotate(k).T / jnp.sqrt(jnp.float32(d))
