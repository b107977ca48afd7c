import flax.linen as nn
import jax
import jax.numpy as jnp


class PositionTable(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, tokens):
        table = self.param("pos_embed", nn.initializers.normal(stddev=0.02), (32, self.d_model))
        return table[: tokens.shape[-1]]


def learned_pos_embed_forward(seed, T, d_model):
    seed, T, d_model = int(seed), int(round(T)), int(round(d_model))
    model = PositionTable(d_model)
    x = jnp.zeros((1, T), dtype=jnp.int32)
    v = model.init(jax.random.PRNGKey(seed), x)
    out = model.apply(v, x)
    return out.reshape(T * d_model)
