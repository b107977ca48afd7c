import jax
import jax.numpy as jnp


def padded_attention_weights(scores, lengths, causal):
    """Softmax over the keys, with padding keys (and future keys if causal) set to -inf first."""
    t_q, t_k = scores.shape[-2:]
    key = jnp.arange(t_k)
    allowed = (key[None, :] < lengths[:, None])[:, None, None, :]  # (B, 1, 1, Tk)
    if causal:
        allowed = allowed & (key[None, :] <= jnp.arange(t_q)[:, None])  # (B, 1, Tq, Tk)
    return jax.nn.softmax(jnp.where(allowed, scores, -jnp.inf), axis=-1)
