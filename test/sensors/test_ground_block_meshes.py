"""Ramp and semi_cylinder_bump blocks are drawn as the surfaces the terrain physics drives on (not as boxes)."""

from __future__ import annotations

import numpy as np
import pytest

from mvsim_ros.sensors.meshes import bump_mesh, ramp_mesh
from mvsim_ros.world.elements.block_geometry import surface_height
from mvsim_ros.world.specs import Geometry


def top_height(mesh: np.ndarray, u: float, v: float) -> float | None:
    """Highest z of the mesh's triangles over the point (u, v) (barycentric interpolation), None if none."""
    best = None
    for a, b, c in mesh[:, :3].reshape(-1, 3, 3).astype(float):
        det = (b[1] - c[1]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[1] - c[1])
        if abs(det) < 1e-12:
            continue  # a vertical face
        l1 = ((b[1] - c[1]) * (u - c[0]) + (c[0] - b[0]) * (v - c[1])) / det
        l2 = ((c[1] - a[1]) * (u - c[0]) + (a[0] - c[0]) * (v - c[1])) / det
        if min(l1, l2, 1 - l1 - l2) >= -1e-9:
            z = l1 * a[2] + l2 * b[2] + (1 - l1 - l2) * c[2]
            best = z if best is None else max(best, z)
    return best


def geometry(kind: str, lx: float, ly: float, lz: float) -> Geometry:
    x0, x1 = (0.0, lx) if kind == "ramp" else (-0.5 * lx, 0.5 * lx)
    footprint = [(x0, -0.5 * ly), (x1, -0.5 * ly), (x1, 0.5 * ly), (x0, 0.5 * ly)]
    return Geometry(kind, footprint, 0.0, lz, {"lx": lx, "ly": ly, "lz": lz})


@pytest.mark.parametrize("kind, build, dims, tolerance", [
    ("ramp", ramp_mesh, (4.0, 2.0, 0.8), 1e-5),
    ("semi_cylinder_bump", bump_mesh, (3.0, 0.4, 0.05), 0.01 * 0.05),  # 24 facets: chords within 1 % of lz
])
def test_drawn_top_is_the_physics_surface(kind, build, dims, tolerance):
    mesh = build(*dims, (0.5, 0.5, 0.5))
    g = geometry(kind, *dims)
    rng = np.random.default_rng(3)
    lx, ly, _ = dims
    x0 = 0.0 if kind == "ramp" else -0.5 * lx
    for u, v in zip(rng.uniform(x0 + 0.01, x0 + lx - 0.01, 60), rng.uniform(-0.49 * ly, 0.49 * ly, 60)):
        assert top_height(mesh, u, v) == pytest.approx(surface_height(g, u, v), abs=tolerance)


@pytest.mark.parametrize("build", [ramp_mesh, bump_mesh])
def test_meshes_are_closed_and_face_outwards(build):
    mesh = build(2.0, 1.0, 0.5, (1.0, 0.0, 0.0))
    tri = mesh[:, :3].reshape(-1, 3, 3).astype(float)
    centre = tri.reshape(-1, 3).mean(axis=0)
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    # Outward: each face's winding normal points away from a point inside the (convex) solid.
    assert np.all(np.einsum("ij,ij->i", normals, tri.mean(axis=1) - centre) > -1e-9)
    # Closed: the signed volume (divergence theorem) equals the solid's volume.
    volume = np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6.0
    expected = 0.5 * 2.0 * 1.0 * 0.5 if build is ramp_mesh else 0.5 * np.pi * 0.5 * 0.5 * 2.0
    assert volume == pytest.approx(expected, rel=0.01)
