import flax.linen as nn
import jax
import jax.numpy as jnp


class Positions(nn.Module):
    T: int
    d_model: int

    @nn.compact
    def __call__(self):
        w = self.param("pos_embed", nn.initializers.normal(stddev=0.02), (32, self.d_model))
        return w[: self.T]


def learned_pos_embed_forward(seed, T, d_model):
    m = Positions(T=int(T), d_model=int(d_model))
    v = m.init(jax.random.PRNGKey(seed))
    return m.apply(v).reshape(-1)
