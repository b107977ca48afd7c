def split_heads(x, num_heads):
    batch, seq, d_model = x.shape
    return x.reshape(batch, num_heads, seq, d_model // num_heads)
