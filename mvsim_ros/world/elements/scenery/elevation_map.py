"""``<element class="elevation_map">``: a terrain height field from an image, an inline matrix or a DEM file,
optionally smoothed by a kernel, placed as MVSim places it."""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.world.elements.scenery.common import (Warn, element_name, kept_tags, local_path, not_negative,
                                                     resource_path, source_of, warn_missing_texture)
from mvsim_ros.world.files.elevation_data import load_dem_xyzrgb, load_elevation_image
from mvsim_ros.world.files.number_text import matlab_matrix, text_rows
from mvsim_ros.world.params.world_tables import ELEMENT_ELEVATION_MAP
from mvsim_ros.world.specs import ElevationMapSpec, Point2
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Texture rotations MVSim accepts for an elevation map's ``texture_image_rotate`` [deg].
TEXTURE_ROTATIONS_DEG: tuple[int, ...] = (0, 90, -90, 180, -180)


def parse_elevation_map(node: XmlNode, warn: Warn, context: str) -> ElevationMapSpec:
    """An ``elevation_map`` element: its heights [m] from the first source given (image, inline matrix,
    DEM file), smoothed by apply_kernel when given, placed at the given corner or centred as MVSim does."""
    values = read_params(ELEMENT_ELEVATION_MAP, node, warn, label=context)
    nodes = values.nodes
    for key in ("texture_extension_x", "texture_extension_y", "model_split_size"):
        not_negative(values, key, node)
    resolution = values["resolution"]
    min_z, max_z = values["elevation_image_min_z"], values["elevation_image_max_z"]
    sources = [key for key in ("elevation_image", "elevation_data_matrix", "dem_xyzrgb_file") if values[key]]
    if not sources:
        raise fail(node, "elevation_map needs <elevation_image>, <elevation_data_matrix> or <dem_xyzrgb_file>")
    used = sources[0]
    for other in sources[1:]:
        warn(nodes[other], f"<{other}> ignored: MVSim uses <{used}> when both are given")
    for key in ("elevation_data_matrix_scale", "dem_offset_x", "dem_offset_y", "dem_offset_z"):
        source = "elevation_data_matrix" if key.endswith("scale") else "dem_xyzrgb_file"
        if key in values.given and used != source:
            warn(nodes[key], f"<{key}> ignored: it applies to <{source}> only")
    texture = resource_path(nodes["texture_image"]) if values["texture_image"] else None
    image_path = local_path(nodes[used]) if used != "elevation_data_matrix" else None
    dem_corner: Point2 | None = None
    if used == "elevation_image":
        if min_z == max_z:
            raise fail(node, f"elevation_image_min_z and elevation_image_max_z must differ (both {min_z:g})")
        heights = load_elevation_image(image_path, min_z, max_z, nodes[used])
    elif used == "elevation_data_matrix":
        heights = matlab_matrix(values[used], nodes[used], "elevation_data_matrix")
        heights = heights * values["elevation_data_matrix_scale"]
    else:
        offset = (values["dem_offset_x"], values["dem_offset_y"], values["dem_offset_z"])
        heights, dem_corner = load_dem_xyzrgb(image_path, resolution, nodes[used], offset)
        if texture is not None:
            warn(nodes["texture_image"], "<texture_image> ignored: MVSim colours the mesh from the DEM file")
    if heights.shape[0] < 2 or heights.shape[1] < 2:
        raise fail(nodes[used], f"an elevation map needs at least 2x2 samples, got {heights.shape[0]}x"
                                f"{heights.shape[1]}")
    rotate_deg = values["texture_image_rotate"]
    if rotate_deg not in TEXTURE_ROTATIONS_DEG:
        raise fail(nodes["texture_image_rotate"],
                   f"texture_image_rotate can only be 0, 90, -90, 180 or -180, got {rotate_deg:g}")
    kernel = None
    if values["apply_kernel"]:
        kernel = _kernel(values["apply_kernel"], nodes["apply_kernel"])
        heights = _convolve_zero_padded(heights, kernel)
    spec = ElevationMapSpec(
        source=source_of(node), heights=heights, name=element_name(node), resolution=resolution,
        elevation_image=image_path if used == "elevation_image" else None,
        elevation_image_min_z=min_z, elevation_image_max_z=max_z,
        dem_xyzrgb_file=image_path if used == "dem_xyzrgb_file" else None,
        texture_image=texture, texture_image_rotate_rad=math.radians(rotate_deg),
        texture_extension_x=values["texture_extension_x"], texture_extension_y=values["texture_extension_y"],
        mesh_color=values["mesh_color"], model_split_size=values["model_split_size"], apply_kernel=kernel,
        elevation_data_matrix_scale=values["elevation_data_matrix_scale"],
        kept=kept_tags(ELEMENT_ELEVATION_MAP, values),
        dem_offset=(values["dem_offset_x"], values["dem_offset_y"], values["dem_offset_z"]),
    )
    if dem_corner is not None:
        for key in ("corner_min_x", "corner_min_y"):
            if key in values.given:
                warn(nodes[key], f"<{key}> ignored: MVSim places a DEM at its own minimum corner")
        spec.corner_min_x, spec.corner_min_y = dem_corner
    else:  # MVSim centres the mesh on the origin unless a corner is given
        corner_x, corner_y = values["corner_min_x"], values["corner_min_y"]
        spec.corner_min_x = -0.5 * (heights.shape[0] - 1) * resolution if corner_x is None else corner_x
        spec.corner_min_y = -0.5 * (heights.shape[1] - 1) * resolution if corner_y is None else corner_y
    if texture is not None:
        warn_missing_texture(nodes["texture_image"], spec.texture_image, warn)
    return spec


def _kernel(text: str, node: XmlNode) -> np.ndarray:
    rows = text_rows(text, node, "apply_kernel", 1)
    kernel = np.array(rows) if rows and all(len(r) == len(rows[0]) for r in rows) else None
    if kernel is None or kernel.shape[0] != kernel.shape[1] or kernel.shape[0] < 3 or kernel.shape[0] % 2 == 0:
        raise fail(node, "apply_kernel must be a square matrix of odd size >= 3, one row per line")
    if abs(kernel.sum() - 1.0) >= 5e-3:
        raise fail(node, f"apply_kernel must be normalised (sum to 1), its sum is {kernel.sum():g}")
    return kernel


def _convolve_zero_padded(data: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """out[i, j] = sum_k,l kernel[k, l] * data[i + k - r, j + l - r], samples outside the grid counting as 0."""
    r = kernel.shape[0] // 2
    padded = np.pad(data, r)
    out = np.zeros_like(data, dtype=np.float64)
    rows, cols = data.shape
    for k in range(kernel.shape[0]):
        for m in range(kernel.shape[1]):
            out += kernel[k, m] * padded[k:k + rows, m:m + cols]
    return out


__all__ = ["TEXTURE_ROTATIONS_DEG", "parse_elevation_map"]
