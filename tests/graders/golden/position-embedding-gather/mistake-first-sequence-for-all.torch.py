# Known mistake 'first-sequence-for-all' (copied from mistakes.yaml): Used the first sequence's positions for the whole batch.
def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    rows = embedding_table[positions[0].long()]  # (T, d_model)
    return rows.unsqueeze(0).expand(n, t, embedding_table.shape[1])
