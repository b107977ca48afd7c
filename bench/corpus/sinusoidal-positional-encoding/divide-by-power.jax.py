import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    out = []
    for p in range(max_len):
        row = []
        for i in range(0, d_model, 2):
            row += [p / 10000 ** (i / d_model)] * 2
        out.append(row)
    ang = jnp.array(out)
    return jnp.where(jnp.arange(d_model) % 2 == 0, jnp.sin(ang), jnp.cos(ang))
