import torch


def position_embedding_gather(
    positions: torch.Tensor, embedding_table: torch.Tensor
) -> torch.Tensor:
    """Look up one row of the position table for every token.

    Args:
        positions: (N, T) float32 tensor holding integer position ids (e.g. 3.0).
        embedding_table: (max_len, d_model) float32 tensor; row p belongs to position p.

    Returns:
        (N, T, d_model) tensor with out[n, t] = embedding_table[positions[n, t]].
    """
    # 1. Turn the float ids into integers (torch indexes with long tensors).
    # 2. Use them to index the first axis of the table.
    raise NotImplementedError("write your solution here")
