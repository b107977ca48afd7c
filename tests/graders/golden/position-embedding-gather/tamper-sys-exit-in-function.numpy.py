# Attack: sys.exit(0) inside the function; SystemExit is caught per test like any exception -> runtime_error.
import sys


def position_embedding_gather(positions, embedding_table):
    sys.exit(0)
