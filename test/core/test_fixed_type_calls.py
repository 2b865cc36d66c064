"""FixedTypeCalls: compiled calls without numba's per-call typing give the kernel's own results, per key."""

from collections import namedtuple

import numpy as np
from numba import njit

from mvsim_ros.core.jit import FixedTypeCalls

Pair = namedtuple("Pair", ["a", "b"])


@njit
def weighted_sum(pair, weight):
    """sum(a) + weight * sum(b), and b scaled in place by weight."""
    total = pair.a.sum() + weight * pair.b.sum()
    pair.b[:] *= weight
    return total


def test_direct_calls_give_the_kernels_results_and_write_in_place():
    calls = FixedTypeCalls()
    pair = Pair(np.arange(4.0), np.ones(3))
    expected_pair = Pair(np.arange(4.0), np.ones(3))
    for weight in (2.0, 0.5, -3.0, 10.0):
        assert calls.call(weighted_sum, "floats", pair, weight) == weighted_sum(expected_pair, weight)
        assert np.array_equal(pair.b, expected_pair.b)
    assert calls.knows("floats")  # the later calls went straight to the compiled version


def test_each_key_keeps_its_own_compiled_version():
    calls = FixedTypeCalls()
    floats = Pair(np.arange(3.0), np.arange(3.0))
    ints = Pair(np.arange(3), np.arange(3))
    assert calls.call(weighted_sum, "floats", floats, 1.0) == 6.0
    assert calls.call(weighted_sum, "ints", ints, 2) == 3 + 2 * 3
    assert calls.call(weighted_sum, "ints", ints, 1) == 3 + 1 * 6  # b was doubled in place by the call before
    assert calls.call(weighted_sum, "floats", floats, 1.0) == 6.0
    assert calls.knows("floats") and calls.knows("ints")
    calls.forget()
    assert not calls.knows("floats") and not calls.knows("ints")
