import torch


def position_embedding_gather(positions, embedding_table):
    ids = positions.long()
    flat = torch.index_select(embedding_table, 0, ids.reshape(-1))
    return flat.reshape(*ids.shape, embedding_table.shape[1])
