"""Footprints of vehicles with trailers and of articulated vehicles.

Trailers: which vehicles each one tows, and the outline of the whole train.

A vehicle tows another when a world-file <joint> has the first as body_a and the second as body_b (chains are
followed: a trailer's own trailer belongs to the train too). The footprint is the convex hull of the chassis
outlines of the whole train in the towing vehicle's frame, from the current poses: it grows and shifts as the
hitch angles change, which is what Nav2's costmap needs to keep the trailer clear of obstacles.

Articulated vehicles: the two units' outline at the present pivot angle (the world file's corner parameters, or the
chassis outlines' bounding boxes), see vehicles/articulated.py.
"""

from __future__ import annotations

import numpy as np

from mvsim_ros.physics.vehicles.articulated import articulated_footprint, chassis_corners
from mvsim_ros.world.elements.block_geometry import convex_hull_2d
from mvsim_ros.world.specs import VehicleSpec, WorldSpec


def towed_vehicles(world: WorldSpec) -> dict[int, list[int]]:
    """For each vehicle index that tows something, the indices of every vehicle in its train (in chain order)."""
    index = {v.name: i for i, v in enumerate(world.vehicles)}
    direct: dict[int, list[int]] = {}
    for joint in world.joints:
        if joint.body_a in index and joint.body_b in index:
            direct.setdefault(index[joint.body_a], []).append(index[joint.body_b])
    trains: dict[int, list[int]] = {}
    for head in direct:
        seen, queue = [], list(direct[head])
        while queue:
            k = queue.pop(0)
            if k not in seen and k != head:
                seen.append(k)
                queue.extend(direct.get(k, []))
        trains[head] = seen
    return trains


def relative_pose(pose: np.ndarray, base: int, other: int) -> tuple[float, float, float]:
    """(x, y, yaw) of vehicle `other` in vehicle `base`'s frame [m, m, rad], from world poses (N, 3)."""
    dx, dy = pose[other, 0] - pose[base, 0], pose[other, 1] - pose[base, 1]
    c, s = np.cos(pose[base, 2]), np.sin(pose[base, 2])
    yaw = (pose[other, 2] - pose[base, 2] + np.pi) % (2 * np.pi) - np.pi
    return float(c * dx + s * dy), float(-s * dx + c * dy), float(yaw)


def train_footprint(world: WorldSpec, pose: np.ndarray, head: int, train: list[int]) -> list[tuple[float, float]]:
    """Convex outline [m] of vehicle `head` and its trailers `train`, counter-clockwise, in `head`'s frame."""
    points = [np.asarray(world.vehicles[head].chassis.shape, dtype=float)]
    for k in train:
        x, y, yaw = relative_pose(pose, head, k)
        outline = np.asarray(world.vehicles[k].chassis.shape, dtype=float)
        c, s = np.cos(yaw), np.sin(yaw)
        points.append(np.c_[x + c * outline[:, 0] - s * outline[:, 1], y + s * outline[:, 0] + c * outline[:, 1]])
    return convex_hull_2d(np.vstack(points))


def articulated_outline(vehicle: VehicleSpec, gamma: float) -> list[tuple[float, float]]:
    """Outline [m] of an articulated vehicle in its base_link at pivot angle gamma [rad], counter-clockwise."""
    a = vehicle.articulation
    corners = a.corners or chassis_corners(vehicle.chassis.shape, a.front_chassis.shape, a.front_length,
                                           a.rear_length)
    return articulated_footprint(corners, a.pivot_x, gamma)
