import jax
import jax.numpy as jnp


def rope(x, positions):
    d_head = x.shape[-1]
    theta = 10000.0 ** (-jnp.arange(0, d_head, 2, dtype=jnp.float32) / d_head)
    angles = positions[:, None, :, None].astype(jnp.float32) * theta
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    return jnp.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1).reshape(x.shape)


def decode_with_cache(
    x,
    k_cache,
    v_cache,
    pad,
    in_proj_weight,
    in_proj_bias,
    out_proj_weight,
    out_proj_bias,
    num_heads,
):
    b, s, d_model = x.shape
    d_head = d_model // num_heads
    c = k_cache.shape[2]

    def split(a):
        return a.reshape(b, s, num_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = (split(a) for a in jnp.split(x @ in_proj_weight.T + in_proj_bias, 3, axis=-1))
    slot = jnp.arange(c + s)
    positions = jnp.maximum(slot[None, :] - pad[:, None], 0)
    q = rope(q, positions[:, c:])
    keys = rope(jnp.concatenate([k_cache, k], axis=2), positions)
    values = jnp.concatenate([v_cache, v], axis=2)
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, keys) / jnp.sqrt(jnp.float32(d_head))
    causal = slot[None, :] <= (c + jnp.arange(s))[:, None]
    allowed = causal[None, None] & (slot[None, :] >= pad[:, None])[:, None, None, :]
    weights = jax.nn.softmax(jnp.where(allowed, scores, -jnp.inf), axis=-1)
    merged = jnp.einsum("bhqk,bhkd->bhqd", weights, values).transpose(0, 2, 1, 3)
    return merged.reshape(b, s, d_model) @ out_proj_weight.T + out_proj_bias
