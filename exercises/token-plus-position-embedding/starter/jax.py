import jax.numpy as jnp


def embed_with_positions(
    token_ids: jnp.ndarray, token_table: jnp.ndarray, position_table: jnp.ndarray
) -> jnp.ndarray:
    """Token embeddings plus the embeddings of positions 0 .. T-1.

    Args:
        token_ids: (N, T) float32 JAX array holding integer token ids (e.g. 7.0).
        token_table: (vocab_size, d_model) float32 JAX array; row v belongs to token v.
        position_table: (max_len, d_model) float32 JAX array; row p belongs to position p.

    Returns:
        (N, T, d_model) JAX array: token_table[token_ids] + position_table[:T].
    """
    # 1. Cast the ids to integers (jnp.int32) and look the tokens up.
    # 2. Add the first T rows of the position table (broadcasting over the batch).
    raise NotImplementedError("write your solution here")
