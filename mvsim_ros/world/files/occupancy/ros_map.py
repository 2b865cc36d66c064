"""Occupancy grids stored as a ROS map_server YAML file and its image, read as ROS 2 Nav2 ``nav2_map_server``
(``map_io.cpp``, ``loadMapYaml`` and ``loadMapFromFile``) reads them; the differences from ROS 1 ``map_server``
are listed in :func:`load_ros_map_yaml`."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import yaml
from PIL import Image, UnidentifiedImageError

from mvsim_ros.world.files.occupancy.loaded_grid import LoadedGrid, Where, grid_error
from mvsim_ros.world.xml.bounded_io import open_image, read_data_file


_ROS_MODES = ("trinary", "scale", "raw")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _yaml_number(doc: dict, key: str, path: Path, where: Where) -> float:
    if key not in doc:
        raise grid_error(f"ROS map YAML {path}: missing key '{key}'", where)
    value = doc[key]
    if not _is_number(value) or not math.isfinite(value):
        raise grid_error(f"ROS map YAML {path}: '{key}' must be a finite number, got {value!r}", where)
    return float(value)


def _image_shades(img: Image.Image, path: Path, where: Where) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-pixel mean of the red, green and blue channels and the alpha channel (or None), both scaled to [0, 1].

    A grey pixel counts as red = green = blue = grey, as it does for the GraphicsMagick ``pixelColor`` that Nav2
    uses. An image "has alpha" when its mode carries an alpha band or it declares a transparent colour (PNG tRNS).
    """
    mode = img.mode
    if mode in ("I", "I;16", "I;16L", "I;16B", "I;16N"):  # 16-bit grey (PGM maxval 65535, 16-bit PNG)
        grey = np.asarray(img, dtype=np.float64) / 65535.0
        if "transparency" in img.info:
            alpha = (np.asarray(img) != img.info["transparency"]).astype(np.float64)
            return grey, alpha
        return grey, None
    if mode == "F":
        raise grid_error(f"ROS map image {path}: floating-point images are not supported", where)
    if "transparency" in img.info or mode in ("PA", "La", "RGBa"):
        img = img.convert("RGBA")
    elif mode not in ("L", "LA", "RGB", "RGBA"):
        img = img.convert("RGBA" if "A" in img.getbands() else ("L" if mode == "1" else "RGB"))
    data = np.asarray(img, dtype=np.float64) / 255.0
    if img.mode == "L":
        return data, None
    if img.mode == "LA":
        return data[..., 0], data[..., 1]
    if img.mode == "RGB":
        return data.mean(axis=2), None
    return data[..., :3].mean(axis=2), data[..., 3]  # RGBA


def load_ros_map_yaml(path: Path, where: Where = ("", None, "element")) -> LoadedGrid:
    """Load a ROS map_server / Nav2 map: a YAML file naming an image plus its geometry and thresholds.

    YAML keys (as ``nav2_map_server``'s ``loadMapYaml``): ``image`` (non-empty; relative paths are relative to the
    YAML file's folder), ``resolution`` [m/pixel] (> 0), ``origin`` [x, y, yaw] (exactly three numbers: the world
    pose of the image's lower-left pixel corner; a non-zero yaw is rejected, rotated maps are not supported),
    ``occupied_thresh``, ``free_thresh`` and ``negate`` (0/1 or true/false), all required, and the optional
    ``mode``: ``trinary`` (default), ``scale`` or ``raw``.

    Per pixel (as ``loadMapFromFile``), with all channels scaled to [0, 1]: ``shade`` is the mean of red, green and
    blue (a grey pixel has all three equal); in trinary mode an image with an alpha channel averages the alpha in
    too, i.e. shade = (r + g + b + a) / 4 (so a fully transparent pixel is dark, not unknown). ``occ`` = shade if
    ``negate`` else 1 - shade. Then

    * trinary: occ > occupied_thresh -> 100; occ < free_thresh -> 0; otherwise -1;
    * scale: a pixel that is not fully opaque -> -1; else occ > occupied_thresh -> 100, occ < free_thresh -> 0,
      otherwise rint(100 * (occ - free_thresh) / (occupied_thresh - free_thresh)) (round half to even);
    * raw: v = round(255 * shade) (negate and alpha are ignored); 0 <= v <= 100 -> v, otherwise -1.

    The image's top row is the grid's maximum y (it becomes the last row of ``occupancy``).

    ``occupied`` = ``occupancy > 100 * occupied_thresh``: the cells whose occupancy probability exceeds the map's
    own occupied threshold. In trinary mode that is exactly the cells map_server marks 100; in scale and raw mode
    it also takes the in-between values above the threshold.

    Differences from ROS 1 ``map_server`` (``image_loader.cpp``), which this deliberately does not follow: ROS 1
    applies ``negate`` in raw mode and stores raw values > 127 as negative int8, maps scale-mode values to
    1 + 98 * ratio instead of rint(100 * ratio), and only treats alpha == 0 (not alpha < 255) as unknown in scale
    mode. MRPT's ``COccupancyGridMap2D::loadFromROSMapServerYAML`` (used by MVSim) differs further: it ignores
    alpha and yaw, rejects raw mode and stores scale-mode pixels as probabilities.

    Every problem (unreadable or non-mapping YAML, missing or mistyped keys, missing or unreadable image) raises
    :class:`WorldFileError` carrying ``where`` (the world file, line and tag that named this map) and the YAML path.
    """
    path = Path(path)
    if not path.is_file():
        raise grid_error(f"ROS map YAML not found: {path}", where)
    try:
        text = read_data_file(path, where, "ROS map YAML").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise grid_error(f"cannot read ROS map YAML {path}: {exc}", where) from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise grid_error(f"ROS map YAML {path} is not valid YAML: {exc}", where) from None
    if not isinstance(doc, dict):
        raise grid_error(f"ROS map YAML {path} must be a mapping of keys to values, got {type(doc).__name__}", where)

    image_name = doc.get("image")
    if "image" not in doc:
        raise grid_error(f"ROS map YAML {path}: missing key 'image'", where)
    if not isinstance(image_name, str) or not image_name.strip():
        raise grid_error(f"ROS map YAML {path}: 'image' must be a non-empty file name, got {image_name!r}", where)

    resolution = _yaml_number(doc, "resolution", path, where)
    if resolution <= 0:
        raise grid_error(f"ROS map YAML {path}: 'resolution' must be > 0, got {resolution}", where)

    if "origin" not in doc:
        raise grid_error(f"ROS map YAML {path}: missing key 'origin'", where)
    origin = doc["origin"]
    if (not isinstance(origin, list) or len(origin) != 3
            or not all(_is_number(v) and math.isfinite(v) for v in origin)):
        raise grid_error(f"ROS map YAML {path}: 'origin' must be a list of three numbers [x, y, yaw], got {origin!r}",
                         where)
    if origin[2] != 0:
        raise grid_error(f"ROS map YAML {path}: rotated maps (origin yaw != 0) are not supported, got yaw={origin[2]}",
                         where)

    occupied_thresh = _yaml_number(doc, "occupied_thresh", path, where)
    free_thresh = _yaml_number(doc, "free_thresh", path, where)

    if "negate" not in doc:
        raise grid_error(f"ROS map YAML {path}: missing key 'negate'", where)
    negate_value = doc["negate"]
    if not isinstance(negate_value, (bool, int)):
        raise grid_error(f"ROS map YAML {path}: 'negate' must be 0, 1, true or false, got {negate_value!r}", where)
    negate = bool(negate_value)

    mode = doc.get("mode", "trinary")
    if mode not in _ROS_MODES:
        raise grid_error(f"ROS map YAML {path}: 'mode' must be one of {', '.join(_ROS_MODES)}, got {mode!r}", where)
    if mode == "scale" and not occupied_thresh > free_thresh:
        raise grid_error(f"ROS map YAML {path}: scale mode needs occupied_thresh > free_thresh, "
                         f"got {occupied_thresh} and {free_thresh}", where)

    image_path = path.parent / image_name
    if not image_path.is_file():
        raise grid_error(f"ROS map YAML {path}: image not found: {image_path}", where)
    try:
        with open_image(image_path, where, "ROS map image") as img:
            img.load()
            shade, alpha = _image_shades(img, image_path, where)
    except FileNotFoundError:
        raise grid_error(f"ROS map YAML {path}: image not found: {image_path}", where) from None
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise grid_error(f"ROS map YAML {path}: cannot read image {image_path}: {exc}", where) from None

    if mode == "raw":
        value = np.floor(shade * 255.0 + 0.5)
        occupancy = np.where((value >= 0) & (value <= 100), value, -1).astype(np.int8)
    else:
        if mode == "trinary" and alpha is not None:
            shade = (3.0 * shade + alpha) / 4.0
        occ = shade if negate else 1.0 - shade
        if mode == "scale":  # in-between values; the clip only affects cells the thresholds overwrite below
            ratio = np.clip((occ - free_thresh) / (occupied_thresh - free_thresh), 0.0, 1.0)
            occupancy = np.rint(ratio * 100.0).astype(np.int8)
        else:
            occupancy = np.full(occ.shape, -1, np.int8)
        occupancy[occ < free_thresh] = 0
        occupancy[occ > occupied_thresh] = 100  # map_server tests "occupied" first: it wins if both hold
        if mode == "scale" and alpha is not None:
            occupancy[alpha < 1.0] = -1

    occupancy = np.ascontiguousarray(occupancy[::-1, :])  # image top row = maximum y -> last row
    occupied = occupancy > 100.0 * occupied_thresh
    return LoadedGrid(occupancy=occupancy, occupied=occupied, resolution=resolution,
                      x_min=float(origin[0]), y_min=float(origin[1]))


__all__ = ["load_ros_map_yaml"]
