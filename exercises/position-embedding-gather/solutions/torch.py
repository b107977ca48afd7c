import torch


def position_embedding_gather(positions, embedding_table):
    """Gather embedding_table[positions] for a (N, T) batch of float-encoded ids."""
    ids = positions.long()  # (N, T)
    return torch.nn.functional.embedding(ids, embedding_table)  # (N, T, d_model)
