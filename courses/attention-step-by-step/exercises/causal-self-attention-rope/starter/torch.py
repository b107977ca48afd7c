import torch


def causal_self_attention(
    x: torch.Tensor,
    lengths: torch.Tensor,
    in_proj_weight: torch.Tensor,
    in_proj_bias: torch.Tensor,
    out_proj_weight: torch.Tensor,
    out_proj_bias: torch.Tensor,
    num_heads: int,
) -> torch.Tensor:
    """A decoder's multi-head self-attention layer with RoPE, on a right-padded batch.

    Args:
        x: (B, T, d_model) float32 tensor: the input of every token.
        lengths: (B,) integer tensor; sequence b has lengths[b] real tokens, then padding.
        in_proj_weight: (3 * d_model, d_model): W^Q, W^K and W^V stacked, each stored
            (out_features, in_features) as nn.Linear stores them.
        in_proj_bias: (3 * d_model,): the three biases, in the same order.
        out_proj_weight: (d_model, d_model): W^O, stored (out_features, in_features).
        out_proj_bias: (d_model,).
        num_heads: H, which divides d_model; d_head = d_model // H is even.

    Returns:
        (B, T, d_model): the layer's output for every token.
    """
    # TODO 1: q, k, v = x W^T + b with the three parts of in_proj_weight and in_proj_bias.
    # TODO 2: split each into heads: (B, T, d_model) -> (B, H, T, d_head).
    # TODO 3: RoPE on q and k (not v): pair (2i, 2i+1) of the head vector at position t turns
    #         by t * 10000^(-2i/d_head).
    # TODO 4: scores q k^T / sqrt(d_head), hidden where key > query or key is padding.
    # TODO 5: softmax over the keys, weights @ v, merge the heads back to (B, T, d_model).
    # TODO 6: the output projection: merged W_O^T + b_O.
    return torch.zeros(x.shape)  # placeholder
