# Attack: unbounded Python recursion; RecursionError is caught per test -> runtime_error.
def position_embedding_gather(positions, embedding_table):
    return position_embedding_gather(positions, embedding_table)
