def split_heads(x, num_heads):
    batch, seq, d_model = x.shape
    x = x.reshape(batch, seq, d_model // num_heads, num_heads)
    return x.permute(0, 3, 1, 2)
