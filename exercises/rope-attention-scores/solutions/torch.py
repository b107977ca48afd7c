import math

import torch


def rope_attention_scores(q, k):
    """s[m, n] = <R_m q_m, R_n k_n> / sqrt(d), with each pair (2i, 2i+1) as a complex number."""
    seq_len, d = q.shape
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    angles = torch.arange(seq_len, dtype=torch.float64)[:, None] * theta[None, :]  # (T, d/2)
    turn = torch.polar(torch.ones_like(angles), angles)  # e^{i * angle}, (T, d/2)
    # (T, d) -> (T, d/2, 2) -> complex (T, d/2): pair i becomes x[2i] + i * x[2i + 1].
    q_c = torch.view_as_complex(q.double().reshape(seq_len, d // 2, 2).contiguous()) * turn
    k_c = torch.view_as_complex(k.double().reshape(seq_len, d // 2, 2).contiguous()) * turn
    # The real dot product of two vectors of pairs is the real part of sum(z_q * conj(z_k)).
    scores = (q_c[:, None, :] * k_c[None, :, :].conj()).real.sum(dim=-1)  # (T, T)
    return (scores / math.sqrt(d)).float()
