import torch
import torch.nn.functional as F


def rope(x):
    t, d_head = x.shape[-2:]
    theta = 10000.0 ** (-torch.arange(0, d_head, 2, dtype=torch.float32) / d_head)
    angles = torch.arange(t, dtype=torch.float32)[:, None] * theta[None, :]
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


def causal_self_attention(
    x, lengths, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads
):
    b, t, d_model = x.shape
    q, k, v = F.linear(x, in_proj_weight, in_proj_bias).chunk(3, dim=-1)

    def split(a):
        return a.reshape(b, t, num_heads, d_model // num_heads).transpose(1, 2)

    q, k, v = rope(split(q)), rope(split(k)), split(v)
    key = torch.arange(t)
    allowed = (key[None, :] < lengths[:, None])[:, None, None, :] & (key[None, :] <= key[:, None])
    heads = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return heads.transpose(1, 2).reshape(b, t, d_model)
