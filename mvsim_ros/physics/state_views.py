"""Read-only views of a Simulation's state: body twists, the third dimension from the terrain phase (heights,
attitudes, quaternions, angular velocities), drive torques, collisions, block and actor poses.

`SimulationViews` is a base class of `Simulation` (physics/simulation.py); it reads the attributes the simulation
keeps (pose, velocity, body_pose, body_velocity, terrain, wheels, box2d, movers, _n, _animated, block_pose3) and
changes nothing but the collision flags `take_collisions` resets and the block pose buffer `block_poses3` fills.
Units: SI, angles in radians; world frame unless said.
"""

from __future__ import annotations

import numpy as np

from mvsim_ros.physics.terrain import body_angular_velocity, orientation_quaternions


class SimulationViews:
    """The state accessors of Simulation (see its docstring for the state they read)."""

    def body_twist(self) -> np.ndarray:
        """(vx, vy, omega) of each vehicle's reference point in its own frame [m/s, m/s, rad/s]."""
        return local_twist(self.pose, self.velocity)

    @property
    def unit_pose(self) -> np.ndarray:
        """(x, y, yaw) of the front unit of each articulated vehicle (origin at its axle) [m, m, rad]."""
        return self.body_pose[self._n:]

    # 3D: the terrain phase's arrays, live (updated in place after every step; copy to keep a snapshot).
    @property
    def body_z(self) -> np.ndarray:
        """Height [m] of every body's origin (rows of body_pose), on the ground under its wheels."""
        return self.terrain.z

    @property
    def body_pitch(self) -> np.ndarray:
        """Pitch [rad] of every body (rows of body_pose): R = Rz(yaw) Ry(pitch) Rx(roll), > 0 nose down."""
        return self.terrain.pitch

    @property
    def body_roll(self) -> np.ndarray:
        """Roll [rad] of every body (rows of body_pose): > 0 lifts the left side."""
        return self.terrain.roll

    @property
    def body_vz(self) -> np.ndarray:
        """Vertical speed [m/s] of every body's origin over the last step."""
        return self.terrain.vz

    @property
    def vehicle_z(self) -> np.ndarray:
        """Height [m] of each vehicle's reference point (aligned with `pose`)."""
        return self.terrain.z[:self._n]

    @property
    def vehicle_pitch(self) -> np.ndarray:
        """Pitch [rad] of each vehicle (aligned with `pose`), > 0 nose down (REP-103)."""
        return self.terrain.pitch[:self._n]

    @property
    def vehicle_roll(self) -> np.ndarray:
        """Roll [rad] of each vehicle (aligned with `pose`), > 0 left side up (REP-103)."""
        return self.terrain.roll[:self._n]

    @property
    def vehicle_vz(self) -> np.ndarray:
        """Vertical speed [m/s] of each vehicle's reference point over the last step."""
        return self.terrain.vz[:self._n]

    def angular_velocity3(self, bodies: bool = False) -> np.ndarray:
        """Angular velocity [rad/s] of each vehicle (every body when `bodies`) in its own 3D frame, what a gyroscope
        on it reads: from the yaw rate and the pitch and roll rates over the last step."""
        t, rows = self.terrain, slice(None) if bodies else slice(0, self._n)
        return body_angular_velocity(self.body_velocity[rows, 2], t.pitch[rows], t.roll[rows], t.pitch_rate[rows],
                                     t.roll_rate[rows])

    @property
    def body_pose3(self) -> np.ndarray:
        """(x, y, z, yaw, pitch, roll) [m, rad] of every body (vehicles, then front units), a new array."""
        t, pose = self.terrain, self.body_pose
        return np.column_stack([pose[:, 0], pose[:, 1], t.z, pose[:, 2], t.pitch, t.roll])

    @property
    def pose3(self) -> np.ndarray:
        """(x, y, z, yaw, pitch, roll) [m, rad] of each vehicle's reference point, a new array."""
        return self.body_pose3[:self._n]

    @property
    def unit_pose3(self) -> np.ndarray:
        """(x, y, z, yaw, pitch, roll) [m, rad] of each articulated vehicle's front unit, a new array."""
        return self.body_pose3[self._n:]

    def orientation(self, bodies: bool = False) -> np.ndarray:
        """Unit quaternions (x, y, z, w) of each vehicle (or every body when `bodies`): Rz(yaw) Ry(pitch) Rx(roll)."""
        t, yaw = self.terrain, self.body_pose[:, 2]
        rows = slice(None) if bodies else slice(0, self._n)
        return orientation_quaternions(yaw[rows], t.pitch[rows], t.roll[rows])

    def ground_height(self, x, y, z_ref) -> np.ndarray:
        """Ground height [m] under world points (x, y) [m] seen from height z_ref [m]: the highest surface there not
        above z_ref, else 0 (MVSim's rule; arrays broadcast, see physics/terrain/surfaces.py)."""
        return self.terrain.ground_height(x, y, z_ref)

    @property
    def wheel_ground_z(self) -> np.ndarray:
        """Ground height [m] under each wheel's contact point at the last terrain phase (0 on flat worlds)."""
        return self.terrain.wheel_ground

    @property
    def drive_torque(self) -> np.ndarray:
        """Torque [N m] each wheel's drive delivered over the last step: the controller's motor torque plus the
        torque that held the slope force at the contact patch (wheels.torque + wheels.hold_torque)."""
        return self.wheels.torque + self.wheels.hold_torque

    @property
    def collision_now(self) -> np.ndarray:
        """True for vehicles touching a wall, block or other vehicle now."""
        return self.box2d.contacts.touching > 0

    def take_collisions(self) -> np.ndarray:
        """True for vehicles that touched something since the last call (or are touching now); resets."""
        counter = self.box2d.contacts
        hit = counter.since_reset | (counter.touching > 0)
        counter.since_reset[:] = False
        return hit

    def block_poses(self) -> np.ndarray:
        """(x, y, yaw) of each block [m, m, rad]."""
        rows = [(*b.position, b.angle) for b in self.box2d.blocks]
        return np.array(rows, dtype=float).reshape(-1, 3)

    def block_poses3(self) -> np.ndarray:
        """(x, y, z, yaw, pitch, roll) of each block [m, rad]: animated blocks exactly where their keyframes say;
        the others at Box2D's planar pose with their initial pitch and roll, and z: static blocks (and those with
        skip_elevation_adjust) keep their loaded z, blocks moved by Box2D stand on the terrain under them."""
        out = self.block_pose3
        if len(out):
            out[:, [0, 1, 3]] = self.block_poses()
            out[self._animated] = self.movers.poses[:len(self._animated)]
        return out.copy()

    @property
    def actor_poses(self) -> np.ndarray:
        """(x, y, z, yaw) of each actor [m, rad], where its path says at the current time."""
        return self.movers.poses[len(self._animated):, [0, 1, 2, 3]]

    @property
    def animated_blocks(self) -> np.ndarray:
        """Indices of the keyframe-animated blocks (into the world's block list)."""
        return self._animated


def local_twist(pose: np.ndarray, velocity: np.ndarray) -> np.ndarray:
    """(vx, vy, omega) in each body's own frame from world-frame velocities (N, 3) and poses (N, 3)."""
    c, s = np.cos(pose[:, 2]), np.sin(pose[:, 2])
    vx, vy = velocity[:, 0], velocity[:, 1]
    return np.stack([c * vx + s * vy, -s * vx + c * vy, velocity[:, 2]], axis=1)
