# Attack: raises a BaseException subclass whose __str__ raises; the harness must still report the test -> runtime_error.
class Unprintable(BaseException):
    def __str__(self):
        raise ValueError("no message for you")

    __repr__ = __str__


def position_embedding_gather(positions, embedding_table):
    raise Unprintable()
