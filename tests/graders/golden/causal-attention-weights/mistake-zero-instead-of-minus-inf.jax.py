import jax
import jax.numpy as jnp


def causal_attention_weights(scores):
    t = scores.shape[-1]
    allowed = jnp.tril(jnp.ones((t, t), dtype=bool))
    return jax.nn.softmax(jnp.where(allowed, scores, 0.0), axis=-1)
