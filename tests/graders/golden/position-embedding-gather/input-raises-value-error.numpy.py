# Bad input: the function raises ValueError (as a careless int() of an array would) -> runtime_error.
def position_embedding_gather(positions, embedding_table):
    return embedding_table[int(positions)]
