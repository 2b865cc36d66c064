"""Compilation of the step's array kernels with numba (cached on disk after the first run).

The kernels are plain numpy/loop code: compiled, one call handles all wheels of all vehicles at a cost of a
few microseconds, where the same numpy expressions would cost a microsecond per operation in call overhead.
"""

from numba import njit

#: Decorator for step kernels: nopython mode, cached compilation, IEEE-exact arithmetic (no fastmath).
kernel = njit(cache=True, nogil=True)
