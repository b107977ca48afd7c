# Attack: sleeps 100 s using no CPU, so a CPU-time limit alone would not catch it; wall time must -> time_limit_exceeded.
import time


def position_embedding_gather(positions, embedding_table):
    time.sleep(100)
    return embedding_table[positions.astype(int)]
