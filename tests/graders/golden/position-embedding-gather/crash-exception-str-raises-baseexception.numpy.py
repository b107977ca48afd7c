# Attack: an exception whose __str__ raises SystemExit (a BaseException the harness's guard does not catch); must still end clearly -> runtime_error.
class Unprintable(Exception):
    def __str__(self):
        raise SystemExit(0)


def position_embedding_gather(positions, embedding_table):
    raise Unprintable()
