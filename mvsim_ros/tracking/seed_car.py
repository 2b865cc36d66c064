"""The 1/10-scale racecar's world (worlds/seed002_car.world.xml) loaded with its variables set: surface, chassis outline
(which moves the centre of gravity) and time step."""

from __future__ import annotations

from pathlib import Path

from mvsim_ros.world import load_world_string
from mvsim_ros.world.files.world_path import WORLDS_FOLDER, resolve_world_path
from mvsim_ros.world.specs import WorldSpec
from mvsim_ros.world.elements.vehicles import PACEJKA_SURFACES

#: The racecar's world file name, in the package's worlds/ folder.
SEED_CAR_WORLD_NAME = "seed002_car.world.xml"
#: Its vehicle's name.
SEED_CAR_NAME = "racecar"
#: Surfaces with Pacejka tyre coefficients (dry, wet, snow, ice).
SURFACES = tuple(PACEJKA_SURFACES)
_ROOT_TAG = '<mvsim_world version="1.0">'


def seed_car_world_path() -> Path:
    """The world file, found as every world name is (world.files.world_path: the source tree, the ament share
    directory or the installed one); FileNotFoundError listing the places looked in."""
    return resolve_world_path(f"{WORLDS_FOLDER}/{SEED_CAR_WORLD_NAME}")


def seed_car_world(surface: str = "dry", chassis: tuple[float, float] | None = None,
                   timestep: float | None = None, path: Path | None = None) -> WorldSpec:
    """The racecar's world on `surface` (dry, wet, snow, ice); `chassis` = (rear x, front x) [m] of the chassis
    outline (None: the file's); `timestep` [s] (None: the file's)."""
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}; valid: {', '.join(SURFACES)}")
    path = path or seed_car_world_path()
    text = path.read_text(encoding="utf-8")
    if _ROOT_TAG not in text:
        raise ValueError(f"{path}: no {_ROOT_TAG} root tag to put the variables after")
    variables = {"SURFACE": surface}
    if chassis is not None:
        variables.update(CHASSIS_REAR=f"{float(chassis[0])!r}", CHASSIS_FRONT=f"{float(chassis[1])!r}")
    if timestep is not None:
        variables["TIMESTEP"] = f"{float(timestep)!r}"
    defined = "".join(f'<variable name="{k}" value="{v}"/>' for k, v in variables.items())
    return load_world_string(text.replace(_ROOT_TAG, _ROOT_TAG + defined, 1), file=str(path))


__all__ = ["SEED_CAR_NAME", "SEED_CAR_WORLD_NAME", "SURFACES", "seed_car_world", "seed_car_world_path"]
