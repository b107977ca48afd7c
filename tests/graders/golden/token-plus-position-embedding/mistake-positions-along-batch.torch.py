# Known mistake 'positions-along-batch' (copied from mistakes.yaml): Gave each sequence a position instead of each token.
def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.long()
    n = ids.shape[0]
    tokens = token_table[ids]
    return tokens + position_table[:n].unsqueeze(1)  # (N, 1, d_model)
