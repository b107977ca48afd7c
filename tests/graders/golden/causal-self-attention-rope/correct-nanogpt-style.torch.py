import math

import torch


def rotate(x, cos, sin):
    """Pairs (2i, 2i+1) as complex numbers, turned by multiplying with e^(i t theta)."""
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(pairs * torch.complex(cos, sin)).flatten(-2)


def causal_self_attention(
    x, lengths, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads
):
    """nanoGPT's CausalSelfAttention with RoPE (as in Llama's reference code) and padding."""
    B, T, C = x.size()
    hs = C // num_heads
    q, k, v = (x @ in_proj_weight.t() + in_proj_bias).split(C, dim=2)
    k = k.view(B, T, num_heads, hs).transpose(1, 2)
    q = q.view(B, T, num_heads, hs).transpose(1, 2)
    v = v.view(B, T, num_heads, hs).transpose(1, 2)
    freqs = 1.0 / (10000.0 ** (torch.arange(0, hs, 2).float() / hs))
    angles = torch.outer(torch.arange(T).float(), freqs)
    q, k = rotate(q, angles.cos(), angles.sin()), rotate(k, angles.cos(), angles.sin())
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    bias = torch.tril(torch.ones(T, T)).view(1, 1, T, T)
    att = att.masked_fill(bias == 0, float("-inf"))
    padding = torch.arange(T)[None, :] >= lengths[:, None]
    att = att.masked_fill(padding[:, None, None, :], float("-inf"))
    att = torch.softmax(att, dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    return y @ out_proj_weight.t() + out_proj_bias
