# Attack: prints forever; the output is capped and drained, so the flood cannot block or fill memory, and the wall clock ends it -> time_limit_exceeded.
def position_embedding_gather(positions, embedding_table):
    while True:
        print("spam " * 200)
