# Attack: returns an object whose __eq__ is always True instead of an array; the harness refuses non-numeric objects -> runtime_error, never accepted.
class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


def position_embedding_gather(positions, embedding_table):
    return AlwaysEqual()
