"""Wheels grouped by friction model, each group with its per-wheel parameter matrix, and the per-wheel
overrides of friction parameters by property regions (MVSim's `friction_mu` / `friction_C_rr`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mvsim_ros.physics.friction import FRICTION_CODES, FRICTION_MODELS
from mvsim_ros.world.specs import WorldSpec

#: Property names a region may set, and the friction parameter column each one overrides.
REGION_OVERRIDES = {"friction_mu": "mu", "friction_C_rr": "C_rr"}


@dataclass
class FrictionGroup:
    """All wheels using one friction model: their indices, and their parameters (columns = the model's names).

    base_params holds the world-file values; params is what the next step uses (base + region overrides). code: the
    model's number (friction.FRICTION_CODES), which friction.solve_wheels_into dispatches on.
    """

    code: int
    names: tuple[str, ...]
    index: np.ndarray
    base_params: np.ndarray
    params: np.ndarray = field(init=False)
    all_wheels: bool = False

    def __post_init__(self) -> None:
        self.params = self.base_params.copy()


@dataclass
class RegionOverride:
    """An axis-aligned region [m] that sets one friction parameter of the wheels inside it."""

    x_min: float
    x_max: float
    y_min: float
    y_max: float
    column_name: str
    value: float


def friction_groups(world: WorldSpec, wheel_vehicle: np.ndarray) -> list[FrictionGroup]:
    """One group per friction model used in the world (wheels in order within each group)."""
    models = [world.vehicles[v].friction.model for v in wheel_vehicle.tolist()]
    groups = []
    for name in sorted(set(models)):
        names = FRICTION_MODELS[name].param_names
        index = np.array([i for i, m in enumerate(models) if m == name], dtype=np.intp)
        rows = [[world.vehicles[wheel_vehicle[i]].friction.params[p] for p in names] for i in index.tolist()]
        params = np.array(rows, dtype=float).reshape(len(index), len(names))
        groups.append(FrictionGroup(FRICTION_CODES[name], names, index, params, all_wheels=len(index) == len(models)))
    return groups


def region_overrides(world: WorldSpec) -> list[RegionOverride]:
    """Property regions that override a friction parameter (others are for other parts of the simulator)."""
    overrides = []
    for element in world.elements:
        name = getattr(element, "property_name", None)
        if name in REGION_OVERRIDES and isinstance(getattr(element, "value", None), float):
            overrides.append(RegionOverride(element.x_min, element.x_max, element.y_min, element.y_max,
                                            REGION_OVERRIDES[name], element.value))
    return overrides


def apply_region_overrides(groups: list[FrictionGroup], overrides: list[RegionOverride], wheel_x: np.ndarray,
                           wheel_y: np.ndarray) -> None:
    """Reset each group's parameters to the world values, then apply every region containing a wheel centre
    (world frame [m]; later regions win where they overlap)."""
    for group in groups:
        group.params[:] = group.base_params
        x, y = wheel_x[group.index], wheel_y[group.index]
        for region in overrides:
            if region.column_name not in group.names:
                continue
            inside = (x >= region.x_min) & (x <= region.x_max) & (y >= region.y_min) & (y <= region.y_max)
            group.params[inside, group.names.index(region.column_name)] = region.value
