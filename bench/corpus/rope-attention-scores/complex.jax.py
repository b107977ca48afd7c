import jax.numpy as jnp


def as_complex(x):
    t, d = x.shape
    th = 10000.0 ** (-jnp.arange(0, d, 2) / d)
    z = x[:, 0::2] + 1j * x[:, 1::2]
    return z * jnp.exp(1j * jnp.arange(t)[:, None] * th)


def rope_attention_scores(q, k):
    d = q.shape[-1]
    zq, zk = as_complex(q), as_complex(k)
    return (zq @ jnp.conj(zk).T).real / jnp.sqrt(d)
