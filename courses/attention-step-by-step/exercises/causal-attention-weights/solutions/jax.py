import jax
import jax.numpy as jnp


def causal_attention_weights(scores):
    """Softmax over the keys, with every key after the query set to -inf first."""
    t = scores.shape[-1]
    query = jnp.arange(t)[:, None]  # (T, 1)
    key = jnp.arange(t)[None, :]  # (1, T)
    return jax.nn.softmax(jnp.where(key <= query, scores, -jnp.inf), axis=-1)
