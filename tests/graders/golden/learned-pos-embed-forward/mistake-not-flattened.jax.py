# Known mistake 'not-flattened' (copied from mistakes.yaml): Returned the (T, d_model) rows without flattening.
import flax.linen as nn
import jax
import jax.numpy as jnp


class PosEmbed(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, tokens):
        init = nn.initializers.normal(stddev=0.02)
        table = self.param("pos_embed", init, (32, self.d_model))
        return table[: tokens.shape[-1]]


def learned_pos_embed_forward(seed, T, d_model):
    T, d_model = int(T), int(d_model)
    module = PosEmbed(d_model=d_model)
    dummy = jnp.zeros((1, T), dtype=jnp.int32)
    variables = module.init(jax.random.PRNGKey(seed), dummy)
    return module.apply(variables, dummy)
