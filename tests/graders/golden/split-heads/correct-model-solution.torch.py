def split_heads(x, num_heads):
    """(B, T, d_model) -> (B, H, T, d_head): view the last axis as (H, d_head), swap H and T."""
    batch, seq, d_model = x.shape
    return x.view(batch, seq, num_heads, d_model // num_heads).transpose(1, 2)
