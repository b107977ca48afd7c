import jax
import jax.numpy as jnp


def scaled_dot_product_attention(q, k, v):
    """softmax(q k^T / sqrt(d_k)) v, one row of weights per query, written with einsum."""
    d_k = q.shape[-1]
    scores = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(jnp.float32(d_k))  # (B, Tq, Tk)
    weights = jax.nn.softmax(scores, axis=-1)  # over the keys, numerically stable
    return jnp.einsum("bqk,bkv->bqv", weights, v)  # (B, Tq, d_v)
