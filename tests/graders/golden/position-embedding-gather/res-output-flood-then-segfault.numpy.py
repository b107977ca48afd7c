# Attack: prints 1 MB (over the 64 KB output cap, harmless: output is only a log), then segfaults; the crash is the error -> runtime_error.
import ctypes
import sys


def position_embedding_gather(positions, embedding_table):
    sys.stdout.write(("x" * 1023 + "\n") * 1024)
    sys.stdout.flush()
    return ctypes.string_at(0)
