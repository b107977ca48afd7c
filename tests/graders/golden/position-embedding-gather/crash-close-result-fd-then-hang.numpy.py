# Attack: closes fd 4 (the result channel) and then never returns; the wall clock must end it -> time_limit_exceeded.
import os
import time


def position_embedding_gather(positions, embedding_table):
    try:
        os.close(4)
    except OSError:
        pass
    time.sleep(100)
