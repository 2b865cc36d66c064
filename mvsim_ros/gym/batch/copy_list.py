"""The typed list of the copies' CopyArrays that step_copies loops over, built and updated through compiled (and
disk-cached) functions: numba's typed List compiles its Python-side methods for each item type in every process
(seconds for named data this large), its compiled ones are cached. The list holds uncounted views
(uncounted.py): the caller keeps each item's arrays alive while the list holds it."""

from __future__ import annotations

from numba import njit
from numba.typed import List

from mvsim_ros.gym.batch.layout import CopyArrays
from mvsim_ros.gym.batch.uncounted import uncounted


@njit(cache=True)
def _list_of(first):
    copies = List()
    copies.append(uncounted(first))
    return copies


@njit(cache=True)
def _append(copies, item):
    copies.append(uncounted(item))


@njit(cache=True)
def _replace(copies, k, item):
    copies[k] = uncounted(item)


def copy_list(arrays: list[CopyArrays]) -> List:
    """A typed List of uncounted views of `arrays` (at least one; all of the same types), which the caller keeps
    alive."""
    copies = _list_of(arrays[0])
    for item in arrays[1:]:
        _append(copies, item)
    return copies


def replace_copy(copies: List, k: int, item: CopyArrays) -> None:
    """copies[k] = an uncounted view of `item` (kept alive by the caller)."""
    _replace(copies, k, item)
