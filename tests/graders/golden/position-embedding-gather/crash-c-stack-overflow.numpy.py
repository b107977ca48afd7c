# Attack: raises the recursion limit and recurses through C (map), overflowing the C stack: SIGSEGV -> runtime_error.
import sys

sys.setrecursionlimit(10**7)


def _down(n):
    return list(map(_down, [n + 1]))


def position_embedding_gather(positions, embedding_table):
    return _down(0)
