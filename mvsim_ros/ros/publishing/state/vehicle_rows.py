"""Serialized messages of one per-vehicle stream, one per outlet, with their numbers patched at each publication."""

from __future__ import annotations

import numpy as np

from mvsim_ros.ros.publishing.outlet import Outlet
from mvsim_ros.ros.publishing.serialized import SerializedBatch


class VehicleRows:
    """One serialized message per outlet, built from `templates` (index for index with `outlets`); `fill(values)`
    writes the patched `fields` of every message from one row of field values per template.

    Equal templates (same frame ids) share one SerializedBatch; others (single TF tree: frame ids prefixed by
    vehicle) get one each.
    """

    def __init__(self, templates: list, fields: list[str], outlets: list[Outlet]):
        self.groups: list[tuple[np.ndarray, list[Outlet], SerializedBatch]] = []
        # Equal templates (same frame ids) are grouped by their text form: their serialized bytes cannot be the
        # key, because the serializer leaves alignment padding uninitialised.
        keys = [repr(t) for t in templates]
        for key in dict.fromkeys(keys):
            rows = np.array([i for i, k in enumerate(keys) if k == key], dtype=np.intp)
            self.groups.append((rows, [outlets[i] for i in rows.tolist()],
                                SerializedBatch(templates[int(rows[0])], fields, len(rows))))
        self._whole = len(self.groups) == 1

    def fill(self, values: np.ndarray) -> None:
        """Write the fields of every message: values[i] for template i."""
        if self._whole:
            self.groups[0][2].fill(values)
            return
        for rows, _, batch in self.groups:
            batch.fill(values[rows])

    def streams(self) -> list[tuple[list[Outlet], np.ndarray]]:
        """(outlets, serialized rows) pairs for a BatchPublisher."""
        return [(outlets, batch.store) for _, outlets, batch in self.groups]

    def single_batch(self) -> SerializedBatch | None:
        """The one SerializedBatch holding every message when all templates are equal and it is little-endian
        (what the compiled fast path writes), else None."""
        if len(self.groups) != 1 or not self.groups[0][2].little_endian:
            return None
        return self.groups[0][2]

    @property
    def outlets(self) -> list[Outlet]:
        """Every outlet of the stream."""
        return [outlet for _, outlets, _ in self.groups for outlet in outlets]


__all__ = ["VehicleRows"]
