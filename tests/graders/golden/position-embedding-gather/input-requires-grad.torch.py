# Bad input: a result that requires grad (table.requires_grad_()); detached and converted inside the sandbox -> accepted.
import torch


def position_embedding_gather(positions, embedding_table):
    table = embedding_table.clone().requires_grad_(True)
    return torch.nn.functional.embedding(positions.long(), table) * 1.0
