"""Compilation of the step's array kernels with numba (cached on disk after the first run).

The kernels are plain numpy/loop code: compiled, one call handles all wheels of all vehicles at a cost of a
few microseconds, where the same numpy expressions would cost a microsecond per operation in call overhead.
"""

from numba import njit

#: Decorator for step kernels: nopython mode, cached compilation, IEEE-exact arithmetic (no fastmath).
kernel = njit(cache=True, nogil=True)

#: Decorator for kernels that allocate nothing (their arrays all come from the caller, which keeps them alive for
#: the call): compiled without numba's runtime (its `_nrt` option), so array values are not reference-counted. With
#: the runtime, every array a kernel reads through named data (a field of a namedtuple, a view, an argument) costs
#: an atomic increment and decrement: about a third of a one-robot step, and as much again in the stream writers.
#: An allocation inside such a kernel is refused when it compiles ("NRT required but not enabled"), and so is a
#: slice assignment `a[i:j] = b` (numba copies an overlapping source); write element loops. These kernels keep
#: the GIL; code stepping independent worlds on several threads compiles its own entry with nogil.
allocation_free_kernel = njit(cache=True, _nrt=False)


class FixedTypeCalls:
    """Calls of compiled kernels whose arguments keep their types from call to call, without numba's per-call
    argument typing.

    numba types every argument of every call to pick the compiled version; for named data (namedtuples of ~100
    arrays) that typing costs more than the work of a short call (~16 us). Here the first call of a kernel under a
    `key` goes through numba as usual, the compiled version it chose is looked up by the exact types of those
    arguments, and later calls under the same key call that version directly. The caller promises that a key's
    arguments keep their types (same dtypes, dimensions, layouts, tuple shapes); values and array contents may
    change.
    """

    def __init__(self) -> None:
        self._direct: dict = {}

    def call(self, kernel, key, *args):
        """`kernel(*args)`, directly when this key's compiled version is known."""
        direct = self._direct.get(key)
        if direct is not None:
            return direct(*args)
        result = kernel(*args)
        signature = tuple(kernel.typeof_pyval(arg) for arg in args)
        compiled = kernel.overloads.get(signature)
        if compiled is not None:
            self._direct[key] = compiled.entry_point
        return result

    def knows(self, key) -> bool:
        """Whether calls under `key` go straight to a compiled version."""
        return key in self._direct

    def forget(self) -> None:
        """Type every call again (after the arguments were rebuilt)."""
        self._direct.clear()
