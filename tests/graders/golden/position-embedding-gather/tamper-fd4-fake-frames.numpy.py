# Attack: at import, writes a complete well-formed fake result stream (frames for every test id, then END) and exits; frames are data, judged against the reference -> wrong_answer.
import os
import sys

import numpy as np

protocol = sys.modules["protocol"]
frames = [protocol.encode_array(i * 4, np.ones((1, 1, 1), np.float32)) for i in range(10)]
os.write(4, b"".join(frames) + protocol.encode_end(len(frames)))
os._exit(0)


def position_embedding_gather(positions, embedding_table):
    return embedding_table[positions.astype(np.int64)]
