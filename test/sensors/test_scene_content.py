"""The GL scene's content beyond prisms: elevation maps as terrain meshes, blocks and vehicles drawn with their
local visual models. Depth images are checked against the geometry (ray/terrain intersections computed with
`ElevationMapSpec.elevation_at`, the model's transformed extent)."""

import math
import time

import numpy as np
import pytest

from gl_support import needs_gl, optical_pose
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.camera import Intrinsics, render
from mvsim_ros.sensors.scene import Scene, terrain_mesh
from mvsim_ros.world import load_world
from mvsim_ros.world.specs import ElevationMapSpec, SourceRef, WorldSpec

pytestmark = needs_gl

INTR = Intrinsics(160, 120, 80.0, 60.0, 100.0, 100.0, 0.05, 200.0)


def hills(n=64, res=0.25, corner=-8.0):
    """A 64 x 64 elevation map (0.25 m spacing over [-8, 7.75]^2) of smooth hills between 0.4 and 2.0 m."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    x, y = corner + res * i, corner + res * j
    heights = 1.2 + 0.5 * np.sin(x / 1.3) + 0.3 * np.cos(y / 0.9) * np.sin(0.4 * x + 0.2 * y)
    return ElevationMapSpec(source=SourceRef("test", None, "element"), heights=heights, resolution=res,
                            corner_min_x=corner, corner_min_y=corner, mesh_color="#40c040")


def ground_height(emap, x, y):
    z = emap.elevation_at(x, y)
    return 0.0 if z is None else z  # the ground plane stays outside the map


def expected_depth(emap, pose, u, v, t_max=INTR.clip_max, step=0.02):
    """Optical-axis depth Z of the first point where the ray of pixel (u, v) meets the terrain (or the ground
    plane around it): a march in Z (fine over the map, coarse over the flat ground around it) then bisection on
    `elevation_at`; None when it meets nothing within t_max."""
    direction = pose[:3, :3] @ np.array([(u - INTR.cx) / INTR.fx, (v - INTR.cy) / INTR.fy, 1.0])
    origin = pose[:3, 3]

    def above(t):
        p = origin + t * direction
        return p[2] - ground_height(emap, p[0], p[1])

    lo = INTR.clip_min
    if above(lo) <= 0:
        return None
    t = lo
    while t < t_max:
        hi = min(t_max, t + step)
        p = origin + hi * direction
        if not (emap.corner_min_x - 1 < p[0] < emap.corner_max_x + 1
                and emap.corner_min_y - 1 < p[1] < emap.corner_max_y + 1):
            hi = min(t_max, t + 0.5)
        if above(hi) <= 0:
            for _ in range(50):
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if above(mid) > 0 else (lo, mid)
            return 0.5 * (lo + hi)
        lo = t = hi
    return None


def terrain_scene():
    world = WorldSpec(source_file="", elements=[hills()])
    return Scene(world), world.elements[0]


def check_depths(scene, emap, pose, pixels):
    frame = render(scene, {}, INTR, pose)
    checked = 0
    for u, v in pixels:
        want = expected_depth(emap, pose, u, v)
        got = float(frame.depth[v, u])
        if want is None:
            assert not math.isfinite(got), (u, v, got)
            continue
        assert got == pytest.approx(want, rel=0.01), (u, v, got, want)
        checked += 1
    return frame, checked


def test_terrain_mesh_has_two_triangles_per_cell_on_the_samples():
    emap = hills()
    vertices, indices = terrain_mesh(emap)
    assert len(vertices) == 64 * 64 and len(indices) == 3 * 2 * 63 * 63  # 7938 triangles
    xyz = vertices[:, :3].astype(float)
    # Every triangle's plane reproduces elevation_at at its centroid (same diagonal split).
    tri = xyz[indices.reshape(-1, 3)]
    centroids = tri.mean(axis=1)
    for c in centroids[:: 97]:
        assert c[2] == pytest.approx(emap.elevation_at(c[0], c[1]), abs=1e-5)
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    assert np.all(normals[:, 2] > 0)  # counter-clockwise seen from above: not culled from above


def test_downward_camera_reads_the_terrain_height():
    scene, emap = terrain_scene()
    assert scene.terrain_triangles == 2 * 63 * 63
    for cx, cy in ((0.0, 0.0), (3.3, -2.1), (-4.6, 2.9)):
        pose = optical_pose((cx, cy, 6.0), (0, 0, -1), (0, -1, 0))
        pixels = [(u, v) for u in range(3, 160, 13) for v in range(2, 120, 11)]
        frame, checked = check_depths(scene, emap, pose, pixels)
        assert checked == len(pixels)
        # Straight down through the principal point: depth = camera height - terrain height there.
        assert frame.depth[60, 80] == pytest.approx(6.0 - emap.elevation_at(cx + 0.005, cy), rel=0.01)
        green = frame.rgb[:, :, 1].astype(int) - frame.rgb[:, :, 0].astype(int)
        assert np.all(green > 40)  # mesh_color #40c040 everywhere below


def test_forward_camera_sees_the_terrain_and_the_ground_beyond():
    scene, emap = terrain_scene()
    pose = optical_pose((-7.5, 0.5, 3.0), (1.0, 0.1, -0.35), (0.1, -1.0, 0.0))
    pixels = [(u, v) for u in range(1, 160, 9) for v in range(1, 120, 7)]
    frame, checked = check_depths(scene, emap, pose, pixels)
    assert checked > 0.6 * len(pixels)
    assert np.isinf(frame.depth[0, 80])  # sky at the top
    # Some pixels look past the map's far edge at the ground plane, others hit the hills.
    hits = [pose[:3, 3] + frame.depth[v, u] * (pose[:3, :3] @ [(u - 80) / 100, (v - 60) / 100, 1.0])
            for u, v in pixels if math.isfinite(frame.depth[v, u])]
    assert any(emap.elevation_at(p[0], p[1]) is None for p in hits)
    assert sum(emap.elevation_at(p[0], p[1]) is not None for p in hits) > 0.5 * len(hits)


def test_terrain_at_zero_wins_over_the_ground_plane():
    flat = ElevationMapSpec(source=SourceRef("test", None, "element"), heights=np.zeros((20, 20)), resolution=0.5,
                            corner_min_x=-5.0, corner_min_y=-5.0, mesh_color="#ff0000")
    scene = Scene(WorldSpec(source_file="", elements=[flat]))
    pose = optical_pose((0.0, 0.0, 2.0), (1.0, 0.0, -0.3), (0.0, -1.0, 0.0))
    frame = render(scene, {}, INTR, pose)
    below = frame.rgb[80:, :]  # rows looking down onto the map (within 4 m)
    assert np.all(below[:, :, 0] > 150) and np.all(below[:, :, 1] < 60)


def test_terrain_render_time():
    scene, _ = terrain_scene()
    pose = optical_pose((-7.5, 0.5, 3.0), (1.0, 0.1, -0.35), (0.1, -1.0, 0.0))
    intr = Intrinsics(640, 480, 320.0, 240.0, 400.0, 400.0, 0.05, 200.0)
    targets = {}
    render(scene, targets, intr, pose)
    start = time.perf_counter()
    for _ in range(10):
        render(scene, targets, intr, pose)
    per_frame = (time.perf_counter() - start) / 10
    print(f"640x480 RGB-D frame over a 64x64 elevation map: {per_frame * 1e3:.1f} ms, "
          f"{scene.terrain_triangles} terrain triangles")
    assert per_frame < 0.5


# ------------------------------------------------------------------------------------------------ visual models

def write_cube(path):
    import trimesh

    trimesh.creation.box(extents=(1.0, 1.0, 1.0)).export(str(path))  # a 1 m cube centred on its origin
    return path


def block_world(tmp_path, visual, pose="3 0 0", extra=""):
    """A world with one static block (a 0.4 m prism outline at `pose`) carrying `visual`."""
    text = f"""<mvsim_world version="1.0">
  <block name="b"><static>true</static><color>#ff0000</color><zmin>0</zmin><zmax>0.5</zmax>
    <shape><pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt><pt>-0.2 0.2</pt></shape>
    <init_pose>{pose}</init_pose>{visual}</block>
  {extra}
</mvsim_world>"""
    path = tmp_path / "w.world.xml"
    path.write_text(text)
    return load_world(path)


CUBE_VISUAL = ("<visual><model_uri>cube.obj</model_uri><model_scale>2.0</model_scale>"
               "<model_offset_z>1.0</model_offset_z>{more}</visual>")
#: A forward-looking camera 1 m up at the origin, looking along +x.
FORWARD = optical_pose((0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, -1.0, 0.0))


def test_block_drawn_with_its_scaled_model(tmp_path):
    write_cube(tmp_path / "cube.obj")
    world = block_world(tmp_path, CUBE_VISUAL.format(more=""))
    scene = Scene(world)
    assert scene.block_models == [True] and scene.warnings == []
    frame = render(scene, {}, INTR, FORWARD)
    # The 2 m cube (x in [2, 4], y in [-1, 1], z in [0, 2]), not the 0.4 m prism (front face at x = 2.8).
    assert frame.depth[60, 80] == pytest.approx(2.0, rel=0.01)
    red = (frame.rgb[:, :, 0] > 100) & (frame.rgb[:, :, 1] < 40)
    cols = np.nonzero(red[60])[0]
    # Front face at depth 2 spans y in [-1, 1]: u = 80 -/+ 100 * 1 / 2.
    assert cols.min() == pytest.approx(30, abs=1) and cols.max() == pytest.approx(130, abs=1)
    rows = np.nonzero(red[:, 80])[0]
    assert rows.min() == pytest.approx(10, abs=1)  # top edge z = 2 at depth 2: v = 60 - 100 * 1 / 2


def test_model_with_inward_winding_is_still_drawn(tmp_path):
    import trimesh

    cube = trimesh.creation.box(extents=(1.0, 1.0, 1.0))
    cube.invert()  # clockwise triangles seen from outside: back-face culling would hide the front face
    cube.export(str(tmp_path / "cube.obj"))
    scene = Scene(block_world(tmp_path, CUBE_VISUAL.format(more="")))
    assert render(scene, {}, INTR, FORWARD).depth[60, 80] == pytest.approx(2.0, rel=0.01)


def test_model_rotation_and_pose_follow_the_block(tmp_path):
    write_cube(tmp_path / "cube.obj")
    world = block_world(tmp_path, CUBE_VISUAL.format(more="<model_yaw>45</model_yaw>"))
    scene = Scene(world)
    frame = render(scene, {}, INTR, FORWARD)
    # Turned 45 deg: its vertical edge at x = 3 - sqrt(2) faces the camera.
    assert frame.depth[60, 80] == pytest.approx(3.0 - math.sqrt(2.0), rel=0.01)
    # Posed every frame from the simulation: the block moved to x = 5 and turned by 45 deg back (square on).
    scene.block_poses = np.array([[5.0, 0.0, -math.pi / 4]])
    frame = render(scene, {}, INTR, FORWARD)
    assert frame.depth[60, 80] == pytest.approx(4.0, rel=0.01)
    assert frame.depth[60, 60] == pytest.approx(4.0, rel=0.01)  # y = 0.8 at depth 4: still on the 2 m face


def test_vehicle_drawn_with_its_model(tmp_path):
    write_cube(tmp_path / "cube.obj")
    vehicle = """<vehicle name="v"><init_pose>3 0 0</init_pose>
      <dynamics class="differential"><chassis mass="15.0"><shape><pt>-0.1 -0.1</pt><pt>0.1 -0.1</pt>
        <pt>0.1 0.1</pt><pt>-0.1 0.1</pt></shape></chassis>
        <l_wheel pos="0.0 0.25" mass="1.0" width="0.05" diameter="0.20"/>
        <r_wheel pos="0.0 -0.25" mass="1.0" width="0.05" diameter="0.20"/></dynamics>
      <visual><model_uri>cube.obj</model_uri><model_offset_z>0.5</model_offset_z></visual></vehicle>"""
    world = block_world(tmp_path, "", pose="20 20 0", extra=vehicle)
    sim = Simulation(world)
    scene = Scene(world)
    scene.update(sim)
    assert scene.vehicle_models == [True]
    frame = render(scene, {}, INTR, optical_pose((0.0, 0.0, 0.5), (1.0, 0.0, 0.0), (0.0, -1.0, 0.0)))
    assert frame.depth[60, 80] == pytest.approx(2.5, rel=0.01)  # 1 m cube: front face at x = 2.5, not 2.9


def test_missing_or_remote_models_keep_the_prism(tmp_path):
    for uri in ("missing.obj", "https://example.com/m.obj"):
        world = block_world(tmp_path, f"<visual><model_uri>{uri}</model_uri></visual>")
        scene = Scene(world)
        assert scene.block_models == [False] and uri.split("/")[-1] in scene.warnings[0]
        frame = render(scene, {}, INTR, optical_pose((0.0, 0.0, 0.25), (1.0, 0.0, 0.0), (0.0, -1.0, 0.0)))
        assert frame.depth[60, 80] == pytest.approx(2.8, rel=0.01)  # the prism's front face
