"""NumPy or CuPy: the array module of the arrays at hand (imports neither the graph nor CuPy)."""
import numpy as np


def array_module(*arrays):
    """cupy when any of ``arrays`` is a CuPy array, else numpy."""
    for a in arrays:
        if type(a).__module__.startswith("cupy"):
            import cupy
            return cupy
    return np
