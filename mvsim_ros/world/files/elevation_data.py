"""Raw elevation data files: grey-level elevation images and DEM text files of "x y z r g b" rows, read within
the load budget and turned into height grids [m] as MVSim's ElevationMap does."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from mvsim_ros.world.files.number_text import text_rows
from mvsim_ros.world.specs import Point2, Point3
from mvsim_ros.world.xml.bounded_io import open_image, read_data_file
from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.xml.values import bounded, fail
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Most data rows read from a DEM text file (parsing and resampling are bounded by it).
MAX_DEM_POINTS = 200_000
#: Most point-to-cell distances the DEM's nearest-point resampling computes (points x cells): about 1 s.
MAX_DEM_DISTANCES = 100_000_000


def load_elevation_image(path: Path, min_z: float, max_z: float, node: XmlNode) -> np.ndarray:
    """Heights [m] from a grey-level image, as MVSim's ElevationMap does.

    The image is read as 8-bit grey (colour images: ITU-R 601 luma; 16-bit images: the high byte, as OpenCV's
    grey loading does), then its own darkest level maps to ``min_z`` and its brightest to ``max_z`` linearly.
    Result [i, j] = pixel at image row i (0 = top), column j (0 = left): see :class:`ElevationMapSpec`.
    """
    if not path.is_file():
        raise fail(node, f"elevation image not found: {path}")
    try:
        with open_image(path, (node.file, node.line, node.tag), "elevation image") as img:
            grey = _grey8(img)
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise fail(node, f"cannot read elevation image {path}: {exc}") from None
    low, high = float(grey.min()), float(grey.max())
    if low == high:
        raise fail(node, f"elevation image {path} has a single grey level ({low:g}); MVSim cannot scale it "
                         "(it needs at least two different levels)")
    return min_z + (grey - low) * ((max_z - min_z) / (high - low))


def _grey8(img: Image.Image) -> np.ndarray:
    """An image as float64 grey levels 0..255."""
    if img.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I"):
        values = np.asarray(img, dtype=np.int64)
        if img.mode != "I" or values.max() > 255:
            values = values >> 8  # 16-bit samples -> their high byte, as an 8-bit grey load does
        return np.clip(values, 0, 255).astype(np.float64)
    if img.mode == "F":
        return np.clip(np.rint(np.asarray(img, dtype=np.float64)), 0, 255)
    if img.mode not in ("L", "RGB"):
        img = img.convert("RGB") if img.mode not in ("LA", "1") else img.convert("L")
    return np.asarray(img.convert("L"), dtype=np.float64)


def load_dem_xyzrgb(path: Path, resolution: float, node: XmlNode,
                    offset: Point3 = (0.0, 0.0, 0.0)) -> tuple[np.ndarray, Point2]:
    """Resample a DEM text file of "x y z r g b" rows into a height grid, as MVSim does.

    The grid starts at the points' minimum (x, y), has ceil(extent / resolution) samples per axis, and sample
    [i, j] takes the z of the point nearest (2D) to ((i + 0.5) * res, (j + 0.5) * res) from that corner.
    `offset` (x, y, z) [m] is added to every point first (MVSim's dem_offset_x/y/z).
    Returns (heights, (corner_min_x, corner_min_y)). Colours are not kept.
    """
    if not path.is_file():
        raise fail(node, f"DEM file not found: {path}")
    text = read_data_file(path, (node.file, node.line, node.tag), "DEM file").decode("utf-8", errors="replace")
    data = _dem_rows(text, node, f"DEM file {path.name}") + np.array([*offset, 0.0, 0.0, 0.0])
    xy = data[:, :2]
    min_x, min_y = xy.min(axis=0)
    nx = int(math.ceil((xy[:, 0].max() - min_x) / resolution))
    ny = int(math.ceil((xy[:, 1].max() - min_y) / resolution))
    if nx < 2 or ny < 2:
        raise fail(node, f"DEM file {path} spans fewer than 2x2 cells at resolution {resolution:g}")
    bounded(nx * ny, node, "elevation_samples",
            f"DEM file {path.name}: {nx}x{ny} cells at resolution {resolution:g} m")
    if nx * ny * len(data) > MAX_DEM_DISTANCES:
        raise fail(node, f"DEM file {path} is too large for this version ({len(data)} points, {nx}x{ny} cells; "
                         "the nearest-point search here has no spatial index)")
    local = xy - (min_x, min_y)
    ix, iy = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    centres = (np.stack([ix.ravel(), iy.ravel()], axis=1) + 0.5) * resolution
    nearest = np.empty(len(centres), dtype=np.int64)
    chunk = max(1, 4_000_000 // len(data))  # cells per batch: at most ~4e6 distances in memory
    for start in range(0, len(centres), chunk):
        part = centres[start:start + chunk]
        d2 = (part[:, None, 0] - local[None, :, 0]) ** 2 + (part[:, None, 1] - local[None, :, 1]) ** 2
        nearest[start:start + len(part)] = np.argmin(d2, axis=1)
    return data[nearest, 2].reshape(nx, ny), (float(min_x), float(min_y))


def _dem_rows(text: str, node: XmlNode, what: str) -> np.ndarray:
    """The (N, 6) numbers of a DEM text file: counted (at most MAX_DEM_POINTS rows) before they are parsed, parsed
    in one numpy call; any row that is not 6 numbers within the position bounds is reported by `text_rows`, which
    names it."""
    lines = [line for line in text.splitlines() if line.strip() and line.strip()[0] not in "#%"]
    if len(lines) > MAX_DEM_POINTS:
        raise fail(node, f"{what} holds {len(lines)} points; at most {MAX_DEM_POINTS} are read (the nearest-point "
                         "resampling here has no spatial index)")
    try:
        numbers = np.array(re.split(r"[\s,]+", " ".join(lines).strip()), dtype=float)
    except ValueError:
        numbers = np.zeros(0)
    low, high = BOUNDS["position"].low, BOUNDS["position"].high
    if lines and numbers.size == 6 * len(lines) and np.all((numbers >= low) & (numbers <= high)):
        return numbers.reshape(-1, 6)
    return np.array(text_rows(text, node, what, 6, exact=True))


__all__ = ["MAX_DEM_DISTANCES", "MAX_DEM_POINTS", "load_dem_xyzrgb", "load_elevation_image"]
