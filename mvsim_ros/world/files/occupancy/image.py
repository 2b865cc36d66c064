"""Occupancy grids from images (PNG, JPG, PGM, ...): dark pixels are occupied, light pixels are free."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import UnidentifiedImageError

from mvsim_ros.world.xml.bounded_io import open_image
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.specs import OccupancyGridSpec


def load_occupancy_image(
    path: Path,
    resolution: float,
    center_px: tuple[float, float] = (-1.0, -1.0),
    occupied_threshold: float = 0.5,
    where: tuple[str, int | None, str] = ("", None, "element"),
) -> OccupancyGridSpec:
    """Load an image as an occupancy grid.

    A pixel's occupancy is 1 - brightness (black = 1, white = 0); it is occupied when that exceeds
    `occupied_threshold`. `resolution` is metres per pixel. `center_px` = (column, row counted from the image
    top) of the pixel corner that sits at the world origin; a negative value means the image centre.
    The image's top row is the grid's largest y (north up, as in MVSim and ROS map_server). An image with more
    pixels than the load's max_image_pixels is refused from its header (bounded_io.open_image).
    """
    file, line, tag = where
    if not Path(path).is_file():
        raise WorldFileError(f"occupancy image not found: {path}", file=file, line=line, tag=tag)
    try:
        with open_image(path, where, "occupancy image") as img:
            gray = np.asarray(img.convert("L"), dtype=np.float32) / 255.0
    except FileNotFoundError:
        raise WorldFileError(f"occupancy image not found: {path}", file=file, line=line, tag=tag) from None
    except (UnidentifiedImageError, OSError) as exc:
        raise WorldFileError(f"cannot read occupancy image {path}: {exc}", file=file, line=line, tag=tag) from None
    rows, cols = gray.shape
    cx = cols / 2.0 if center_px[0] < 0 else center_px[0]
    cy = rows / 2.0 if center_px[1] < 0 else center_px[1]
    occupancy = 1.0 - gray[::-1, :]  # row 0 = bottom (minimum y)
    return OccupancyGridSpec(
        occupied=np.ascontiguousarray(occupancy > occupied_threshold),
        resolution=resolution,
        x_min=-cx * resolution,
        y_min=-(rows - cy) * resolution,
        source_file=str(path),
        occupancy=np.ascontiguousarray(np.rint(occupancy * 100.0).astype(np.int8)),
    )
