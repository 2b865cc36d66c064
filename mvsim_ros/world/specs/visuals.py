"""Visual-model specs: one ``<visual>`` group (model file, scale, offset, orientation, colour)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class VisualSpec:
    """One ``<visual>`` group. offset [m]; yaw_pitch_roll_rad [rad] (the XML gives degrees); model_color
    '#rrggbb[aa]', model_cull_faces (NONE, FRONT, BACK) and name (what a wheel's linked_yaw names) as given."""

    model_uri: str = ""
    model_scale: float = 1.0
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    yaw_pitch_roll_rad: tuple[float, float, float] = (0.0, 0.0, 0.0)
    show_bounding_box: bool = False
    enabled: bool = True
    model_color: str = "#ffffff"
    model_cull_faces: str = "NONE"
    name: str = "group"


__all__ = ["VisualSpec"]
