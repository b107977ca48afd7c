# Bad input: returns a tensor on the "meta" device (no data); it cannot be converted -> runtime_error.
import torch


def position_embedding_gather(positions, embedding_table):
    return torch.empty(*positions.shape, embedding_table.shape[1], device="meta")
