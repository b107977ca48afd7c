# Bad input: imports a package the sandbox does not have; the file cannot be loaded -> invalid_submission.
import numpy as np
import pandas_that_does_not_exist  # noqa: F401


def position_embedding_gather(positions, embedding_table):
    return embedding_table[positions.astype(np.int64)]
