# Bad input: the function has another name (position_embeddings_gather) -> invalid_submission.
import numpy as np


def position_embeddings_gather(positions, embedding_table):
    return embedding_table[positions.astype(np.int64)]
