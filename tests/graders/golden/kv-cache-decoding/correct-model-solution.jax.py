import jax
import jax.numpy as jnp


def rope(x, positions):
    """Turn pair (2i, 2i+1) of each head vector by positions[b, t] * 10000^(-2i/d_head)."""
    d_head = x.shape[-1]
    theta = 10000.0 ** (-jnp.arange(0, d_head, 2, dtype=jnp.float32) / d_head)
    angles = positions[:, None, :, None].astype(jnp.float32) * theta  # (B, 1, S, d_head/2)
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
    """The layer's output for S new tokens, attending to the cache and to each other."""
    b, s, d_model = x.shape
    d_head = d_model // num_heads
    c = k_cache.shape[2]

    def split(a):  # (B, S, d_model) -> (B, H, S, d_head)
        return a.reshape(b, s, num_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = (split(a) for a in jnp.split(x @ in_proj_weight.T + in_proj_bias, 3, axis=-1))
    positions = c + jnp.arange(s)[None, :] - pad[:, None]  # (B, S)
    q, k = rope(q, positions), rope(k, positions)
    keys = jnp.concatenate([k_cache, k], axis=2)
    values = jnp.concatenate([v_cache, v], axis=2)
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, keys) / jnp.sqrt(jnp.float32(d_head))
    slot = jnp.arange(c + s)
    causal = slot[None, :] <= (c + jnp.arange(s))[:, None]  # bottom-right alignment
    real = slot[None, :] >= pad[:, None]  # (B, C + S)
    allowed = causal[None, None] & real[:, None, None, :]
    weights = jax.nn.softmax(jnp.where(allowed, scores, -jnp.inf), axis=-1)
    merged = jnp.einsum("bhqk,bhkd->bhqd", weights, values).transpose(0, 2, 1, 3)
    return merged.reshape(b, s, d_model) @ out_proj_weight.T + out_proj_bias
