"""Static blocks are found through the shim's one index of everything static (with the ground's fixtures): a scan
among many static blocks, some below or above the beam, gives pybox2d's closest hits beam for beam, and the index
follows the world when a static block is added, removed or moved (rebuilt then, and only then)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.physics.entity_state import place_rigidly
from mvsim_ros.physics.world_edit import with_entity, without_entity
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world, load_world_string
from test_ray_cast import ROBOT, _pybox2d_ranges

pytestmark = pytest.mark.skipif(not box2d_native.AVAILABLE, reason="the Box2D shim is not built")

LIDAR = ('<sensor class="laser" name="scan"><pose_3d>0.1 0 0.3 0 0 0</pose_3d><fov_degrees>360</fov_degrees>'
         '<nrays>361</nrays><range_max>25</range_max><range_std_noise>0</range_std_noise>'
         '<angle_std_noise_deg>0</angle_std_noise_deg></sensor>')


def _block(name: str, x: float, y: float, yaw: float, half: float, zmin: float = 0.0, zmax: float = 1.0,
           static: bool = True) -> str:
    return (f'<block name="{name}"><static>{str(static).lower()}</static><mass>5</mass><init_pose>{x} {y} {yaw}'
            f'</init_pose><zmin>{zmin}</zmin><zmax>{zmax}</zmax><shape><pt>{-half} {-half}</pt><pt>{half} {-half}</pt>'
            f'<pt>{half} {half}</pt><pt>{-half} {half}</pt></shape></block>')


def _world_xml(blocks: int, seed: int = 5) -> str:
    """A robot with a 361-ray lidar (beam height 0.3 m) among `blocks` static boxes scattered over 40 m x 40 m (one in
    eight below the beam, one in eight above it), a few movable boxes and <walls> on the ground body."""
    rng = np.random.default_rng(seed)
    parts = []
    for i in range(blocks):
        x, y = rng.uniform(-20, 20, 2)
        if math.hypot(x, y) < 1.5:
            x += 3.0
        zmin, zmax = ((0.0, 0.2) if i % 8 == 1 else (0.5, 1.5) if i % 8 == 2 else (0.0, 1.0))
        parts.append(_block(f"s{i}", round(x, 3), round(y, 3), round(float(rng.uniform(0, 90)), 2),
                            round(float(rng.uniform(0.1, 0.6)), 3), zmin, zmax))
    parts += [_block(f"m{i}", 2.0 + i, -2.0, 10 * i, 0.2, static=False) for i in range(3)]
    walls = ("<walls><wallThickness>0.1</wallThickness><shape><pt>-22 -22</pt><pt>22 -22</pt><pt>22 22</pt>"
             "<pt>-22 22</pt></shape></walls>")
    robot = f'<vehicle name="r1" class="bot"><init_pose>0 0 0</init_pose>{LIDAR}</vehicle>'
    return f'<mvsim_world version="1.0">{walls}{ROBOT}{robot}{"".join(parts)}</mvsim_world>'


def _same_as_pybox2d(lidar, sim, rng, trials: int = 12) -> int:
    """Scans from random origins equal pybox2d's closest hits; returns how many beams hit something."""
    hits = 0
    for trial in range(trials):
        origin = (float(rng.uniform(-18, 18)), float(rng.uniform(-18, 18)))
        bearings = rng.uniform(-math.pi, math.pi) + lidar.params.angles
        if trial % 2:
            bearings = bearings + rng.normal(0.0, 0.01, bearings.size)
        shim = lidar.ray_cast(sim.box2d.world, origin, bearings)
        assert shim.tobytes() == _pybox2d_ranges(lidar, sim.box2d.world, origin, bearings).tobytes()
        hits += int(np.isfinite(shim).sum())
    return hits


@pytest.mark.parametrize("blocks", [4, 40, 400])
def test_scans_among_static_blocks_equal_pybox2d_closest_hits(blocks):
    world = load_world_string(_world_xml(blocks))
    sim = Simulation(world)
    lidar = build_sensors(world, 1).lidars[0]
    assert _same_as_pybox2d(lidar, sim, np.random.default_rng(blocks)) > 1000


def test_blocks_outside_the_beam_height_are_not_seen():
    """A static block below the beam and one above it, straight ahead of the lidar, and a wall behind both."""
    xml = (f'<mvsim_world version="1.0">{ROBOT}<vehicle name="r1" class="bot"><init_pose>0 0 0</init_pose>{LIDAR}'
           f'</vehicle>{_block("low", 2, 0, 0, 0.2, 0.0, 0.2)}{_block("high", 3, 0, 0, 0.2, 0.5, 1.5)}'
           f'{_block("wall", 6, 0, 0, 0.5)}' + "".join(_block(f"f{i}", -10, i - 40, 0, 0.3) for i in range(80))
           + "</mvsim_world>")
    world = load_world_string(xml)
    sim = Simulation(world)
    lidar = build_sensors(world, 1).lidars[0]
    ahead = lidar.ray_cast(sim.box2d.world, (0.1, 0.0), np.array([0.0]))[0]
    assert ahead == pytest.approx(6.0 - 0.5 - 0.1, abs=2e-3)  # the wall's near face, through the other two


def test_the_index_follows_static_blocks_added_removed_and_moved(tmp_path):
    path = tmp_path / "blocks.world.xml"
    path.write_text(_world_xml(100), encoding="utf-8")
    world = load_world(path)
    sim = Simulation(world)
    lidar = build_sensors(world, 1).lidars[0]
    rng = np.random.default_rng(11)
    index = box2d_native.scene_index(sim.box2d.world)
    _same_as_pybox2d(lidar, sim, rng, 4)
    builds = index.rebuilds
    _same_as_pybox2d(lidar, sim, rng, 4)
    assert index.rebuilds == builds  # nothing static changed: the same grid

    # A static block spawned straight ahead: the next scan sees it.
    spec = load_world_string(_world_xml(0).replace("</mvsim_world>", _block("new", 1.5, 0, 0, 0.2) + "</mvsim_world>"))
    sim = with_entity(sim, spec.blocks[-1])
    lidar = build_sensors(sim.spec, 1).lidars[0]  # as the node does after an edit: the sensors of the new world
    ahead = lidar.ray_cast(sim.box2d.world, (0.1, 0.0), np.array([0.0]))[0]
    assert ahead == pytest.approx(1.5 - 0.2 - 0.1, abs=2e-3)
    assert index.rebuilds == builds + 1
    _same_as_pybox2d(lidar, sim, rng, 4)

    # Moved aside (set-state of a static block), then removed: the beam passes where it stood.
    new = len(sim.box2d.blocks) - 1
    body = sim.box2d.blocks[new]
    place_rigidly([body], body, 1.5, 5.0, 0.0, 0.0, 0.0, 0.0)
    moved = lidar.ray_cast(sim.box2d.world, (0.1, 0.0), np.array([0.0, math.atan2(5.0, 1.4)]))
    assert moved[0] > 1.5 and moved[1] == pytest.approx(math.hypot(1.4, 5.0) - 0.2, abs=0.05)
    assert index.rebuilds == builds + 2
    _same_as_pybox2d(lidar, sim, rng, 4)
    sim = without_entity(sim, "block", new)
    lidar = build_sensors(sim.spec, 1).lidars[0]
    _same_as_pybox2d(lidar, sim, rng, 4)
    assert index.rebuilds == builds + 3


def _piece(name: str, x0: float, y0: float, x1: float, y1: float, zmin: float = 0.0, zmax: float = 1.0) -> str:
    """A static block over the rectangle [x0, x1] x [y0, y1] [m]."""
    points = "".join(f"<pt>{x} {y}</pt>" for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
    return (f'<block name="{name}"><static>true</static><init_pose>0 0 0</init_pose><zmin>{zmin}</zmin>'
            f"<zmax>{zmax}</zmax><shape>{points}</shape></block>")


def _walls_in_pieces_xml(rng: np.random.Generator, scattered: int) -> str:
    """A 36 m square yard whose walls are static blocks cut at random places (pieces touching, some overlapping,
    one in nine below the beam), a smaller room inside whose <walls> on the ground body are cut into pieces, and
    `scattered` static boxes between the two."""
    parts = [_block(f"s{i}", round(float(x), 2), round(float(y), 2), 30.0, 0.2)
             for i, (x, y) in enumerate(rng.uniform(8.0, 16.0, (scattered, 2)) * rng.choice([-1, 1], (scattered, 2)))]
    for side in range(4):
        cuts = np.unique(np.concatenate([[-18.0, 18.0], np.round(rng.uniform(-17.9, 17.9, 60), 1)]))
        for k in range(cuts.size - 1):
            a, b = float(cuts[k]), float(cuts[k + 1] + (0.05 if k % 5 == 3 else 0.0))  # some pieces overlap
            zmin, zmax = (0.0, 0.2) if k % 9 == 4 else (0.0, 1.0)
            if side < 2:
                y = 18.0 if side == 0 else -18.3
                parts.append(_piece(f"w{side}_{k}", a, y, b, y + 0.3, zmin, zmax))
            else:
                x = 18.0 if side == 2 else -18.3
                parts.append(_piece(f"w{side}_{k}", x, a, x + 0.3, b, zmin, zmax))
    inner = np.round(np.linspace(-6.0, 6.0, 13), 3)
    points = "".join(f"<pt>{x0:g} {y:g}</pt><pt>{x1:g} {y:g}</pt>" for y in (-6.0, 6.0)
                     for x0, x1 in zip(inner[:-1], inner[1:]))
    walls = f"<walls><wallThickness>0.2</wallThickness><shape>{points}</shape></walls>"
    robot = f'<vehicle name="r1" class="bot"><init_pose>0 0 0</init_pose>{LIDAR}</vehicle>'
    return f'<mvsim_world version="1.0">{walls}{ROBOT}{robot}{"".join(parts)}</mvsim_world>'


@pytest.mark.parametrize("scattered", [0, 80])
def test_walls_in_pieces_equal_pybox2d_closest_hits(scattered):
    """Pieces lying end to end (a wall cut into blocks or segments) are cast as runs: from anywhere in the yard,
    along the walls (beams grazing their faces and joints) and with pieces below the beam, every range equals
    pybox2d's closest hit, whether the scan lists the runs with its other targets (few) or walks them in the grid
    (among many other static boxes)."""
    rng = np.random.default_rng(3)
    world = load_world_string(_walls_in_pieces_xml(rng, scattered))
    sim = Simulation(world)
    lidar = build_sensors(world, 1).lidars[0]
    hits = _same_as_pybox2d(lidar, sim, rng, 16)
    grazing = [(0.0, 17.99), (0.0, 18.0), (-17.0, -18.0), (17.99, 3.0), (-18.0, -5.0), (3.0, 6.1), (-3.0, -6.1)]
    axes = np.array([0.0, math.pi / 2, math.pi, -math.pi / 2])
    for origin in grazing:
        for bearings in (lidar.params.angles, lidar.params.angles + 1e-7, axes):
            shim = lidar.ray_cast(sim.box2d.world, origin, bearings)
            assert shim.tobytes() == _pybox2d_ranges(lidar, sim.box2d.world, origin, bearings).tobytes(), origin
            hits += int(np.isfinite(shim).sum())
    assert hits > 5000


@pytest.mark.parametrize("noise_steps", [0.2, 2.5, 7.5, 30.0])
def test_noisy_bearings_meet_every_target_in_their_direction(noise_steps):
    """Bearings with angle noise (a noisy lidar) are matched to each target by index range widened by the noise
    seen in the scan, or tested one by one when the noise is large: either way every range equals pybox2d's, with
    few items listed (walls, a few static blocks, movable blocks and a second robot as targets)."""
    xml = _world_xml(4).replace("</mvsim_world>", '<vehicle name="r2" class="bot"><init_pose>1.5 1.0 30'
                                                  "</init_pose></vehicle></mvsim_world>")
    world = load_world_string(xml)
    sim = Simulation(world)
    lidar = build_sensors(world, 1).lidars[0]
    step = float(lidar.params.angles[1] - lidar.params.angles[0])
    rng = np.random.default_rng(int(noise_steps * 10))
    hits = 0
    for _ in range(8):
        origin = (float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)))
        bearings = rng.uniform(-math.pi, math.pi) + lidar.params.angles
        bearings = bearings + rng.uniform(-noise_steps, noise_steps, bearings.size) * step
        shim = lidar.ray_cast(sim.box2d.world, origin, bearings)
        assert shim.tobytes() == _pybox2d_ranges(lidar, sim.box2d.world, origin, bearings).tobytes()
        hits += int(np.isfinite(shim).sum())
    assert hits > 1000
