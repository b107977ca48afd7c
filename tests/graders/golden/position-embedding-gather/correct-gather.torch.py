import torch


def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    d_model = embedding_table.shape[1]
    index = positions.long().reshape(n * t, 1).expand(n * t, d_model)
    return torch.gather(embedding_table, 0, index).reshape(n, t, d_model)
