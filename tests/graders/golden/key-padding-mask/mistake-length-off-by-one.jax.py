import jax
import jax.numpy as jnp


def padded_attention_weights(scores, lengths, causal):
    t_q, t_k = scores.shape[-2:]
    key = jnp.arange(t_k)
    allowed = (key[None, :] <= lengths[:, None])[:, None, None, :]
    if causal:
        allowed = allowed & (key[None, :] <= jnp.arange(t_q)[:, None])
    return jax.nn.softmax(jnp.where(allowed, scores, -jnp.inf), axis=-1)
