import jax.numpy as jnp


def alibi_attention_scores(q, k):
    """scores[h, i, j] = q_i . k_j / sqrt(d) - m_h * (i - j) for j <= i, -inf for j > i."""
    heads, seq_len, d = q.shape
    raw = jnp.matmul(q, jnp.swapaxes(k, -1, -2)) / jnp.sqrt(jnp.float32(d))  # (H, T, T)
    slopes = 2.0 ** (-8.0 * jnp.arange(1, heads + 1, dtype=jnp.float32) / heads)  # (H,)
    i = jnp.arange(seq_len)[:, None]  # query positions down the rows
    j = jnp.arange(seq_len)[None, :]  # key positions across the columns
    scores = raw - slopes[:, None, None] * (i - j)
    return jnp.where(j <= i, scores, -jnp.inf)
