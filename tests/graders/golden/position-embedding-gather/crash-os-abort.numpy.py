# Attack: os.abort(); the process dies by a signal even as pid 1 -> runtime_error.
import os


def position_embedding_gather(positions, embedding_table):
    os.abort()
