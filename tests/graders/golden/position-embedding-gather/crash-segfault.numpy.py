# Attack: segfault through ctypes.string_at(0); the interpreter dies of SIGSEGV and the grader says so -> runtime_error.
import ctypes


def position_embedding_gather(positions, embedding_table):
    return ctypes.string_at(0)
