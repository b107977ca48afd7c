import torch
from torch import nn


def position_embedding_gather(positions, embedding_table):
    embedding = nn.Embedding.from_pretrained(embedding_table, freeze=True)
    with torch.no_grad():
        return embedding(positions.to(torch.int64))
