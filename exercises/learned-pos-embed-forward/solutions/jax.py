import flax.linen as nn
import jax
import jax.numpy as jnp

MAX_T = 32


class LearnedPositionalEmbedding(nn.Module):
    """A trainable (MAX_T, d_model) table; returns the rows of the first T positions."""

    d_model: int

    @nn.compact
    def __call__(self, tokens):
        # tokens: (batch, T) token ids; only their length T is used here.
        pos_embed = self.param(
            "pos_embed", nn.initializers.normal(stddev=0.02), (MAX_T, self.d_model)
        )
        return pos_embed[: tokens.shape[-1]]  # (T, d_model)


def learned_pos_embed_forward(seed, T, d_model):
    """Initialise from PRNGKey(seed) and return pos_embed[:T] flattened to 1-D."""
    T, d_model = int(T), int(d_model)
    module = LearnedPositionalEmbedding(d_model=d_model)
    dummy = jnp.zeros((1, T), dtype=jnp.int32)
    variables = module.init(jax.random.PRNGKey(int(seed)), dummy)
    return module.apply(variables, dummy).reshape(-1)  # (T * d_model,)
