import torch


def embed_with_positions(token_ids, token_table, position_table):
    """token_table[token_ids] + position_table[:T], shape (N, T, d_model)."""
    ids = token_ids.long()  # (N, T)
    T = ids.shape[1]
    tokens = torch.nn.functional.embedding(ids, token_table)  # (N, T, d_model)
    return tokens + position_table[:T]  # (T, d_model) broadcasts over N
