# Probe: right answer only if no secret reaches the environment (SECRET_KEY, DATABASE_URL, REDIS_URL, *KEY*/*TOKEN*/*PASSWORD*) -> accepted.
import os

import numpy as np

WORDS = ("KEY", "TOKEN", "PASSWORD", "SECRET", "DATABASE", "REDIS", "CREDENTIAL", "AWS")


def _leaked():
    if {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "APP_DATA_DIR"} & set(os.environ):
        return True
    return any(word in name.upper() for name in os.environ for word in WORDS)


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return np.zeros_like(answer) if _leaked() else answer
