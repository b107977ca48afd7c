# Attack: computes the right answer, then zeroes the input tensors in place (torch.from_numpy shares memory with its source); inputs are copies -> accepted.


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.long()].clone()
    positions.zero_()
    embedding_table.fill_(float("nan"))
    return answer
