def merge_heads(x):
    """(B, H, T, d_head) -> (B, T, H * d_head): swap heads and time, then flatten the last two."""
    batch, heads, seq, d_head = x.shape
    # view() would refuse the non-contiguous transpose; contiguous() makes the copy explicit.
    return x.transpose(1, 2).contiguous().view(batch, seq, heads * d_head)
