import torch
import torch.nn.functional as F


def rope(x, positions):
    d_head = x.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d_head, 2, dtype=torch.float32) / d_head)
    angles = positions[:, None, :, None].float() * theta
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


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
    c = k_cache.shape[2]
    q, k, v = F.linear(x, in_proj_weight, in_proj_bias).chunk(3, dim=-1)

    def split(a):
        return a.reshape(b, s, num_heads, d_model // num_heads).transpose(1, 2)

    positions = (c + torch.arange(s))[None, :].expand(b, s)
    q, k, v = rope(split(q), positions), rope(split(k), positions), split(v)
    keys, values = torch.cat([k_cache, k], dim=2), torch.cat([v_cache, v], dim=2)
    slot = torch.arange(c + s)
    causal = slot[None, :] <= (c + torch.arange(s))[:, None]
    allowed = causal[None, None] & (slot[None, :] >= pad[:, None])[:, None, None, :]
    heads = F.scaled_dot_product_attention(q, keys, values, attn_mask=allowed)
    return F.linear(heads.transpose(1, 2).reshape(b, s, d_model), out_proj_weight, out_proj_bias)
