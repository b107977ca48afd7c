# Attack: waits for input on stdin; stdin is /dev/null, so input() raises EOFError at once instead of hanging -> runtime_error.
def position_embedding_gather(positions, embedding_table):
    answer = input("position ids? ")
    return answer
