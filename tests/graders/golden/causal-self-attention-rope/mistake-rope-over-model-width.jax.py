import jax
import jax.numpy as jnp


def rope(x):
    t, width = x.shape[-2:]
    theta = 10000.0 ** (-jnp.arange(0, width, 2, dtype=jnp.float32) / width)
    angles = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    return jnp.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1).reshape(x.shape)


def causal_self_attention(
    x, lengths, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads
):
    b, t, d_model = x.shape
    d_head = d_model // num_heads
    q, k, v = jnp.split(x @ in_proj_weight.T + in_proj_bias, 3, axis=-1)
    q, k = rope(q), rope(k)

    def split(a):
        return a.reshape(b, t, num_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = split(q), split(k), split(v)
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.float32(d_head))
    key = jnp.arange(t)
    allowed = (key[None, :] < lengths[:, None])[:, None, None, :] & (key[None, :] <= key[:, None])
    weights = jax.nn.softmax(jnp.where(allowed, scores, -jnp.inf), axis=-1)
    merged = jnp.einsum("bhqk,bhkd->bhqd", weights, v).transpose(0, 2, 1, 3).reshape(b, t, d_model)
    return merged @ out_proj_weight.T + out_proj_bias
