import jax.numpy as jnp


def rope_attention_scores(q, k):
    d = q.shape[-1]
    t = q.shape[0]
    th = 10000.0 ** (-jnp.arange(0, d, 2) / d)
    rel = (jnp.arange(t)[:, None] - jnp.arange(t)[None, :])[..., None] * th
    qe, qo, ke, ko = q[:, 0::2], q[:, 1::2], k[:, 0::2], k[:, 1::2]
    dot = qe[:, None] * ke[None] + qo[:, None] * ko[None]
    cross = qo[:, None] * ke[None] - qe[:, None] * ko[None]
    return (dot * jnp.cos(rel) + cross * jnp.sin(rel)).sum(-1) / jnp.sqrt(d)
