import torch


def embed_with_positions(
    token_ids: torch.Tensor, token_table: torch.Tensor, position_table: torch.Tensor
) -> torch.Tensor:
    """Token embeddings plus the embeddings of positions 0 .. T-1.

    Args:
        token_ids: (N, T) float32 tensor holding integer token ids (e.g. 7.0).
        token_table: (vocab_size, d_model) float32 tensor; row v belongs to token v.
        position_table: (max_len, d_model) float32 tensor; row p belongs to position p.

    Returns:
        (N, T, d_model) tensor: token_table[token_ids] + position_table[:T].
    """
    # 1. Cast the ids to integers (torch uses .long()) and look the tokens up.
    # 2. Add the first T rows of the position table (broadcasting over the batch).
    raise NotImplementedError("write your solution here")
