import torch.nn.functional as F


def embed_with_positions(token_ids, token_table, position_table):
    n, t = token_ids.shape
    tokens = F.embedding(token_ids.long(), token_table)
    positions = position_table[:t].unsqueeze(0).expand(n, t, -1)
    return tokens + positions
