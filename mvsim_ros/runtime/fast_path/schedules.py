"""When a stream of the fast path is next due: a record per stream, read and advanced by compiled code, copied from
and back to the front end's own schedules (core.schedule.Periodic) around each compiled run."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.core.schedule import Periodic

#: One stream's schedule: the simulated time [s] it is next due (inf: never), its period [s] (inf: none) and the
#: simulated time [s] it last went out (nan: not yet).
SCHEDULE = np.dtype([("next_s", np.float64), ("period_s", np.float64), ("last_s", np.float64)])


def schedules(count: int) -> np.ndarray:
    """`count` schedules (SCHEDULE records), never due."""
    out = np.zeros(count, SCHEDULE)
    out["next_s"] = out["period_s"] = math.inf
    out["last_s"] = math.nan
    return out


class ScheduleFields(NamedTuple):
    """Views of the fields of an array of SCHEDULE records (float64, one element per schedule): what Python reads
    and writes between compiled runs (an element of these costs a fraction of a record's field access)."""

    next_s: np.ndarray
    period_s: np.ndarray
    last_s: np.ndarray


def schedule_fields(schedule: np.ndarray) -> ScheduleFields:
    """The field views of an array of SCHEDULE records."""
    return ScheduleFields(schedule["next_s"], schedule["period_s"], schedule["last_s"])


def load_schedule(fields: ScheduleFields, index: int, periodic: Periodic) -> None:
    """Copy a Periodic's next time and period [s] into schedule `index` (inf for one that never fires)."""
    if periodic.period is None:
        fields.next_s[index] = fields.period_s[index] = math.inf
    else:
        fields.next_s[index] = periodic.next_time
        fields.period_s[index] = periodic.period


def store_schedule(fields: ScheduleFields, index: int, periodic: Periodic) -> None:
    """Copy schedule `index`'s next time [s] back into its Periodic (one that never fires keeps its own)."""
    if periodic.period is not None:
        periodic.next_time = float(fields.next_s[index])


@kernel
def next_due(schedule):
    """The earliest next time [s] of an array of SCHEDULE records, inf when there are none."""
    earliest = math.inf
    for i in range(schedule.shape[0]):
        earliest = min(earliest, schedule[i].next_s)
    return earliest
