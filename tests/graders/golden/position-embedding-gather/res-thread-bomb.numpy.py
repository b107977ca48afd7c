# Attack: starts sleeping threads until the process cap refuses a new one ("can't start new thread") -> runtime_error, fast.
import threading
import time


def position_embedding_gather(positions, embedding_table):
    while True:
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
