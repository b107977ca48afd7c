import torch


def decode_with_cache(
    x: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    pad: torch.Tensor,
    in_proj_weight: torch.Tensor,
    in_proj_bias: torch.Tensor,
    out_proj_weight: torch.Tensor,
    out_proj_bias: torch.Tensor,
    num_heads: int,
) -> torch.Tensor:
    """The capstone's layer for S new tokens that follow C cached slots.

    Args:
        x: (B, S, d_model) float32 tensor: the new tokens.
        k_cache: (B, H, C, d_head): the keys of the C earlier slots, already rotated by RoPE.
        v_cache: (B, H, C, d_head): their values.
        pad: (B,) integer tensor; the first pad[b] slots of sequence b are left padding.
        in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias: the layer's weights,
            as in the capstone (nn.MultiheadAttention's state_dict).
        num_heads: H.

    Returns:
        (B, S, d_model): what the layer run on the whole sequence gives at the new slots.
    """
    # TODO 1: q, k, v of the new tokens, split into heads: (B, H, S, d_head).
    # TODO 2: RoPE on q and k at positions C + n - pad[b] (n = 0 .. S - 1).
    # TODO 3: append the new keys and values to the cache: C + S slots.
    # TODO 4: mask: new token n (slot C + n) sees slots j <= C + n with j >= pad[b].
    # TODO 5: softmax(q k^T / sqrt(d_head)) v, merge the heads, output projection.
    return torch.zeros(x.shape)  # placeholder
