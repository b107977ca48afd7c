# Attack: native multithreaded work (8 threads of numpy matmul that release the GIL, forever) -> time_limit_exceeded.
import threading

import numpy as np


def _spin():
    a = np.full((192, 192), 1.0 / 192)
    while True:
        a = a @ a + 1.0 / 192


def position_embedding_gather(positions, embedding_table):
    workers = [threading.Thread(target=_spin, daemon=True) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
