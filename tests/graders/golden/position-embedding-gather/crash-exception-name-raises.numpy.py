# Attack: an exception class whose __name__ (read through a metaclass property) raises; must still end clearly -> runtime_error.
class Meta(type):
    @property
    def __name__(cls):
        raise KeyboardInterrupt


class Nameless(Exception, metaclass=Meta):
    pass


def position_embedding_gather(positions, embedding_table):
    raise Nameless("what is my name?")
