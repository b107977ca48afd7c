import flax.linen as nn
import jax
import jax.numpy as jnp


class Positions(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, x):
        pos_embed = self.param("pos_embed", nn.initializers.normal(0.02), (32, self.d_model))
        return x + pos_embed[: x.shape[0]]


def learned_pos_embed_forward(seed, T, d_model):
    T, d_model = int(T), int(d_model)
    params = Positions(d_model).init(jax.random.PRNGKey(seed), jnp.zeros((T, d_model)))["params"]
    return params["pos_embed"][:T].flatten()
