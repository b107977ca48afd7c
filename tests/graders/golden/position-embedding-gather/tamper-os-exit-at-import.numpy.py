# Attack: os._exit(0) while being loaded: no result and a clean exit code; a missing result must not count as success -> runtime_error.
import os

os._exit(0)


def position_embedding_gather(positions, embedding_table):
    return embedding_table[positions.astype(int)]
