def merge_heads(x):
    batch, heads, seq, d_head = x.shape
    return x.permute(0, 2, 3, 1).reshape(batch, seq, heads * d_head)
