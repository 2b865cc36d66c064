"""Topic and frame naming, as MVSim's ROS 2 node does it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Frames:
    """Frame ids (unprefixed: each vehicle's TF tree lives on its own `<veh>/tf` topic when namespaced)."""

    map: str = "map"
    odom: str = "odom"
    base_link: str = "base_link"


def vehicle_prefix(name: str, vehicle_count: int, force_namespace: bool) -> str:
    """'<name>/' when topics need a per-vehicle namespace (several vehicles, or forced), else ''."""
    return f"{name}/" if vehicle_count > 1 or force_namespace else ""
