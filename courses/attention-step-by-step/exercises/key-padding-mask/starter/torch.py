import torch


def padded_attention_weights(
    scores: torch.Tensor, lengths: torch.Tensor, causal: int
) -> torch.Tensor:
    """Attention weights of a padded batch: padding keys (and future keys if causal) get 0.

    Args:
        scores: (B, H, Tq, Tk) float32 tensor, already scaled; scores[b, h, i, j] is the
            score of query i against key j in head h of sequence b.
        lengths: (B,) integer tensor; sequence b has lengths[b] real tokens (1 to Tk), then
            padding up to Tk.
        causal: 1 to hide every key j > i from query i as well (then Tq == Tk), 0 not to.

    Returns:
        (B, H, Tq, Tk) weights: each row a softmax over the keys that are left, and exactly 0
        on every hidden key.
    """
    # TODO 1: a (B, Tk) mask from the lengths: key j of sequence b is real when j < lengths[b].
    # TODO 2: give it axes for the heads and the queries: (B, 1, 1, Tk).
    # TODO 3: if causal, combine it with the (Tq, Tk) causal mask (a key must pass both).
    # TODO 4: set the hidden scores to -inf, then a stable softmax over the last axis.
    return torch.zeros(scores.shape)  # placeholder
