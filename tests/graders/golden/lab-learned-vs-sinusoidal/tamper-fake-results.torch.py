# Writes perfect accuracies on the result channel and exits before training: never accepted
import os

import numpy as np
import protocol
from torch import nn

os.write(4, protocol.encode_array(0, np.ones(4)) + protocol.encode_array(1, np.zeros(40)))
os.write(4, protocol.encode_end(2))
os._exit(0)


class SinusoidalPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()

    def forward(self, x):
        return x
