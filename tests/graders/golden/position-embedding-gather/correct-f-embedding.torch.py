import torch.nn.functional as F


def position_embedding_gather(positions, embedding_table):
    return F.embedding(positions.long(), embedding_table)
