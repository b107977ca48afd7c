import math

import torch


def rope_attention_scores(q, k):
    """Use R_m^T R_n = R_(n-m): turn each key by the offset n - m and dot it with the raw query."""
    seq_len, d = q.shape
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    pos = torch.arange(seq_len, dtype=torch.float64)
    angle = (pos[None, :] - pos[:, None])[:, :, None] * theta  # (T, T, d/2): (n - m) * theta_i
    cos, sin = torch.cos(angle), torch.sin(angle)
    qe, qo = q.double()[:, None, 0::2], q.double()[:, None, 1::2]  # (T, 1, d/2)
    ke, ko = k.double()[None, :, 0::2], k.double()[None, :, 1::2]  # (1, T, d/2)
    turned_e, turned_o = ke * cos - ko * sin, ke * sin + ko * cos
    return (qe * turned_e + qo * turned_o).sum(dim=-1) / math.sqrt(d)
