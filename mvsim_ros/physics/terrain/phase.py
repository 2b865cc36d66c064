"""The terrain phase of the step: surfaces moved to where they are now, every body's z/pitch/roll refitted, the
slope gravity and normal loads of every wheel for the next friction call; blocks moved by Box2D follow the ground.

The Simulation runs it once after every Box2D step (so the 3D pose it reports matches the planar one) and once at
the start; a world whose surfaces are all the flat ground skips it entirely (`active` is False).
"""

from __future__ import annotations

import numpy as np

from mvsim_ros.physics.terrain.contacts import (FIT_ITERATIONS, STATE_COLUMNS, WHEEL_COLUMNS, SlopeLoads, SupportFit,
                                                SupportPoints, follow_terrain, slope_loads)
from mvsim_ros.physics.terrain.surfaces import TerrainSurfaces
from mvsim_ros.physics.wheels import WheelArrays
from mvsim_ros.world.specs import WorldSpec


class Terrain:
    """Terrain state of a simulation (arrays over bodies: the vehicles, then the articulated front units).

    z [m], pitch, roll [rad]: each body's height and attitude (REP-103, R = Rz(yaw) Ry(pitch) Rx(roll); pitch > 0
    nose down); vz [m/s], pitch_rate, roll_rate [rad/s]: their change over the last step (a drop off a ledge
    happens in one step). These are views of the columns of `state` (STATE_COLUMNS), updated in place.
    point_ground [m]: the ground height under each support point (`points`) at the last fit. slope (per wheel):
    gravity along the ground on the wheel's share of mass, body frame (F_x, F_y) [N]; body_force (per body): their
    sum and torque about the centre of mass (F_x, F_y [N], tau_z [N m], body frame). wheel_table (per wheel,
    WHEEL_COLUMNS): body, share_mass [kg] (chassis share + wheel), flat_load [N] (load on level ground), arm_x,
    arm_y [m] (position relative to the centre of mass).
    """

    def __init__(self, world: WorldSpec, wheels: WheelArrays, arm_x: np.ndarray, arm_y: np.ndarray, gravity: float):
        self.points = SupportPoints.build(world, wheels)
        self.surfaces = TerrainSurfaces.from_world(world, self.points.max_step)
        self.active = not self.surfaces.is_flat()
        bodies = self.points.body_count
        self.state = np.zeros((bodies, len(STATE_COLUMNS)))
        self.z, self.pitch, self.roll, self.vz = (self.state[:, k] for k in range(4))
        self.pitch_rate, self.roll_rate = self.state[:, 6], self.state[:, 7]
        self.point_ground = np.zeros(len(self.points.table))
        self.gravity = float(gravity)
        self.wheel_table = np.column_stack([wheels.body.astype(float), wheels.normal_force / self.gravity + wheels.mass,
                                           wheels.normal_force, arm_x, arm_y]).reshape(-1, len(WHEEL_COLUMNS))
        self.slope = np.zeros((wheels.count, 2))
        self.body_force = np.zeros((bodies, 3))
        self._blocks = _BlockTerrain(world, self.surfaces) if self.active else None

    @property
    def slope_vx(self) -> np.ndarray:
        """Gravity along the ground on each wheel's share of mass, body x [N]."""
        return self.slope[:, 0]

    @property
    def slope_vy(self) -> np.ndarray:
        """Gravity along the ground on each wheel's share of mass, body y [N]."""
        return self.slope[:, 1]

    # -- the phase ------------------------------------------------------------------------------------------
    # Arguments: body_pose (B, 3) (x, y, yaw) from Box2D; normal_force: the wheels' loads [N], written;
    # block_bodies: the Box2D bodies of the world's blocks; block_pose3 (blocks, 6): their (x, y, z, yaw, pitch,
    # roll), x, y, yaw and z of the moving ones written; movers: KinematicMovers (animated blocks first); time:
    # simulated time [s] of the poses.
    def seat(self, body_pose: np.ndarray, normal_force: np.ndarray, block_bodies: list, block_pose3: np.ndarray,
             movers, time: float) -> None:
        """Place every body on the ground it starts on (MVSim: the highest surface under its origin not above half
        its chassis height; here above the elevation map's height there when that is higher than 0, or a vehicle
        starting on a hill would start under it), fit its attitude, and set the loads. No-op when inactive."""
        if not self.active:
            return
        self.move_surfaces(block_bodies, block_pose3, movers, time)
        self.state[:] = 0.0
        x, y = body_pose[:, 0], body_pose[:, 1]
        base = np.maximum(self.surfaces.terrain_base(x, y), 0.0)
        self.z[:] = self.surfaces.ground_height(x, y, base + self.points.seat_height)
        self._run(body_pose, normal_force, 0.0)

    def settle(self, body_pose: np.ndarray, normal_force: np.ndarray, block_bodies: list, block_pose3: np.ndarray,
               movers, time: float, bodies: np.ndarray, blocks: np.ndarray) -> None:
        """After `bodies` (body rows) and `blocks` (block indices) were placed (teleported): each of them looks for
        its ground from its z or the elevation map's height there, whichever is higher (so it lands on a hill and
        stays on its floor), then everything is refitted; the placed bodies' vz is 0."""
        self.move_surfaces(block_bodies, block_pose3, movers, time)
        x, y = body_pose[bodies, 0], body_pose[bodies, 1]
        base = np.maximum(self.z[bodies], self.surfaces.terrain_base(x, y))
        self.z[bodies] = self.surfaces.ground_height(x, y, base + self.points.seat_height[bodies])
        self._blocks.reseat(self.surfaces, block_pose3, blocks)
        self._run(body_pose, normal_force, 0.0)
        self.state[bodies, 3] = self.state[bodies, 6] = self.state[bodies, 7] = 0.0

    def follow(self, body_pose: np.ndarray, normal_force: np.ndarray, block_bodies: list, block_pose3: np.ndarray,
               movers, time: float, dt: float) -> None:
        """After a Box2D step: surfaces to time [s], blocks onto the ground, bodies refitted (FIT_ITERATIONS passes
        from their last pose), vz over dt [s], loads for the next step."""
        self.move_surfaces(block_bodies, block_pose3, movers, time)
        self._run(body_pose, normal_force, dt)

    def _run(self, body_pose: np.ndarray, normal_force: np.ndarray, dt: float) -> None:
        p = self.points
        fit = SupportFit(self.state, p.start, p.table, self.point_ground)
        follow_terrain(body_pose, fit, self._loads(normal_force), self.surfaces.arrays(), self.gravity, dt,
                       FIT_ITERATIONS)

    def _loads(self, normal_force: np.ndarray) -> SlopeLoads:
        """The slope-load arrays, writing the wheels' loads into normal_force [N]."""
        return SlopeLoads(self.wheel_table, self.slope, normal_force, self.body_force)

    def update_loads(self, normal_force: np.ndarray) -> None:
        """Slope gravity per wheel and per body and the wheels' normal loads (written into normal_force [N]) from
        the current state (no refit)."""
        slope_loads(self.state, self._loads(normal_force), self.gravity)

    def move_surfaces(self, block_bodies: list, block_pose3: np.ndarray, movers, time: float) -> None:
        """Animated planes to time [s]; moving block surfaces where their bodies are, Box2D-driven blocks onto the
        ground (no refit of the vehicles)."""
        if self.surfaces.animated_planes:
            self.surfaces.move_planes(time)
        self._blocks.update(self.surfaces, block_bodies, block_pose3, movers)

    # -- queries --------------------------------------------------------------------------------------------
    def ground_height(self, x, y, z_ref) -> np.ndarray:
        """Ground height [m] under world points (x, y) [m] seen from z_ref [m] (TerrainSurfaces.ground_height);
        flat ground (0) everywhere when the world has no terrain."""
        return self.surfaces.ground_height(x, y, z_ref)

    @property
    def wheel_ground(self) -> np.ndarray:
        """Ground height [m] under each wheel's contact point at the last fit (0 when inactive)."""
        out = np.zeros(len(self.wheel_table))
        wheel = self.points.wheel
        out[wheel[wheel >= 0]] = self.point_ground[wheel >= 0]
        return out


class _BlockTerrain:
    """Blocks on terrain, per step: Box2D-driven blocks (dynamic, not skip_elevation_adjust) are put on the
    highest surface under their origin not above z + zmax / 2 (the rule MVSim applies when loading them), and
    block surfaces that move (Box2D-driven or keyframe-animated) are moved in the surface table."""

    def __init__(self, world: WorldSpec, surfaces: TerrainSurfaces):
        blocks = world.blocks
        animated = [b for b, block in enumerate(blocks) if block.animation is not None]
        mover_row = {b: k for k, b in enumerate(animated)}
        self.follow = np.array([b for b, block in enumerate(blocks) if not block.static and block.animation is None
                                and not block.skip_elevation_adjust], dtype=np.intp)
        self.half_height = np.array([0.5 * blocks[b].zmax for b in self.follow.tolist()])
        moving = [(k, b) for k, b in enumerate(surfaces.blocks.tolist()) if not blocks[b].static
                  or blocks[b].animation is not None]
        self.surface_rows = np.array([k for k, _ in moving], dtype=np.intp)
        self.surface_blocks = np.array([b for _, b in moving], dtype=np.intp)
        self.surface_movers = np.array([mover_row.get(b, -1) for _, b in moving], dtype=np.intp)
        self.box2d_rows = np.union1d(self.follow, self.surface_blocks[self.surface_movers < 0]).astype(np.intp)

    def reseat(self, surfaces: TerrainSurfaces, block_pose3: np.ndarray, blocks: np.ndarray) -> None:
        """Blocks just placed (those of `blocks` that follow the ground): onto the highest surface not above half
        their height over their z or the elevation map there, whichever is higher."""
        rows = np.intersect1d(self.follow, blocks)
        if rows.size:
            x, y = block_pose3[rows, 0], block_pose3[rows, 1]
            half = np.array([self.half_height[np.searchsorted(self.follow, b)] for b in rows.tolist()])
            base = np.maximum(block_pose3[rows, 2], surfaces.terrain_base(x, y))
            block_pose3[rows, 2] = surfaces.ground_height(x, y, base + half)
            self.update(surfaces, None, block_pose3, None, read_bodies=False)

    def update(self, surfaces: TerrainSurfaces, block_bodies: list, block_pose3: np.ndarray, movers,
               read_bodies: bool = True) -> None:
        """Read the moving blocks' poses (block_pose3: (x, y, z, yaw, pitch, roll) per block, z updated in place)."""
        if not self.box2d_rows.size and not self.surface_rows.size:
            return
        if read_bodies:
            for b in self.box2d_rows.tolist():
                body = block_bodies[b]
                block_pose3[b, 0], block_pose3[b, 1] = body.position
                block_pose3[b, 3] = body.angle
        if self.follow.size and read_bodies:
            rows = self.follow
            block_pose3[rows, 2] = surfaces.ground_height(block_pose3[rows, 0], block_pose3[rows, 1],
                                                          block_pose3[rows, 2] + self.half_height)
        if self.surface_rows.size:
            poses = block_pose3[self.surface_blocks][:, [0, 1, 3, 2]]
            animated = self.surface_movers >= 0
            if animated.any() and movers is not None:
                poses[animated] = movers.poses[self.surface_movers[animated]][:, [0, 1, 3, 2]]
            surfaces.move_blocks(self.surface_rows, poses)


__all__ = ["Terrain"]
