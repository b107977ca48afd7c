def merge_heads(x):
    batch, heads, seq, d_head = x.shape
    return x.reshape(batch, seq, heads * d_head)
