import math

import numpy as np


def rope_attention_scores(q, k):
    """One pair at a time: the score of pair i is the dot product of two turned 2-D points."""
    seq_len, d = q.shape
    scores = np.zeros((seq_len, seq_len))
    for i in range(d // 2):
        theta = 10000.0 ** (-2 * i / d)
        for m in range(seq_len):
            a = m * theta
            qx = q[m, 2 * i] * math.cos(a) - q[m, 2 * i + 1] * math.sin(a)
            qy = q[m, 2 * i] * math.sin(a) + q[m, 2 * i + 1] * math.cos(a)
            for n in range(seq_len):
                b = n * theta
                kx = k[n, 2 * i] * math.cos(b) - k[n, 2 * i + 1] * math.sin(b)
                ky = k[n, 2 * i] * math.sin(b) + k[n, 2 * i + 1] * math.cos(b)
                scores[m, n] += qx * kx + qy * ky
    return scores / math.sqrt(d)
