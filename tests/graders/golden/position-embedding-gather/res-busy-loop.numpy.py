# Attack: a busy loop that never returns; only the 5 s wall-clock limit can end it -> time_limit_exceeded.
def position_embedding_gather(positions, embedding_table):
    count = 0
    while True:
        count += 1
