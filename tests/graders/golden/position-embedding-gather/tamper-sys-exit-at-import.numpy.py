# Attack: sys.exit(0) while being loaded; SystemExit is caught as a load failure -> invalid_submission.
import sys

sys.exit(0)


def position_embedding_gather(positions, embedding_table):
    return embedding_table[positions.astype(int)]
