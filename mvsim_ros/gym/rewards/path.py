"""PathFollow as compiled kernels: the projection of a point onto a path (a circle or a polyline), the path seen
from the vehicle, the reward and the termination of a step.

A path is the arrays of a PathArrays (paths.Circle.arrays(), paths.Polyline.arrays()), passed to the kernels as
its fields in order (`*arrays`). State a copy keeps: the arc length [m] of its nearest path point after the
previous step (set by path_start at reset, updated by path_follow_step).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.gym.rewards.goal import relative_goal

#: PathArrays.kind of a circle.
CIRCLE = 0
#: PathArrays.kind of a polyline.
POLYLINE = 1


class PathArrays(NamedTuple):
    """A path as the kernels read it. kind: CIRCLE or POLYLINE; closed: it wraps around (arc length modulo
    length); length [m]; circle (5,): centre x, y [m], radius [m], 1.0 counter-clockwise / 0.0 clockwise, start
    angle [rad] (zeros for a polyline); points (M, 2) [m] (the first point repeated at the end when closed),
    deltas (M - 1, 2) [m] and segments (M - 1,) [m]: each segment's vector and length, starts (M,): the arc length
    of each point [m] (for a circle: empty (0, 2), (0, 2), (0,), (0,))."""

    kind: int
    closed: bool
    length: float
    circle: np.ndarray
    points: np.ndarray
    deltas: np.ndarray
    segments: np.ndarray
    starts: np.ndarray


@kernel
def path_project(kind: int, closed: bool, length: float, circle: np.ndarray, points: np.ndarray,
                 deltas: np.ndarray, segments: np.ndarray, starts: np.ndarray, x: float, y: float) -> tuple:
    """The nearest path point to (x, y) [m]: (arc length s [m], signed cross-track distance [m] (> 0: left of the
    direction of travel), the path's heading there [rad]). A circle: along the ray from the centre through the
    point; a polyline: the nearest over all segments, the first of equally near ones."""
    if kind == CIRCLE:
        cx, cy, radius, ccw, start_angle = circle[0], circle[1], circle[2], circle[3] != 0.0, circle[4]
        angle = math.atan2(y - cy, x - cx)
        distance = math.hypot(x - cx, y - cy)
        sweep = (angle - start_angle) if ccw else (start_angle - angle)
        s = radius * (sweep % (2.0 * math.pi))
        cross = (radius - distance) if ccw else (distance - radius)  # the centre is left when ccw
        heading = angle + (0.5 * math.pi if ccw else -0.5 * math.pi)
        return s, cross, heading
    best, best_gap, best_t, best_nx, best_ny = 0, math.inf, 0.0, 0.0, 0.0
    for i in range(segments.shape[0]):
        dx, dy = deltas[i, 0], deltas[i, 1]
        t = ((x - points[i, 0]) * dx + (y - points[i, 1]) * dy) / (segments[i] * segments[i])
        t = min(max(t, 0.0), 1.0)
        nx, ny = points[i, 0] + t * dx, points[i, 1] + t * dy
        gap = math.hypot(x - nx, y - ny)
        if gap < best_gap or i == 0:
            best, best_gap, best_t, best_nx, best_ny = i, gap, t, nx, ny
    dx, dy = deltas[best, 0], deltas[best, 1]
    side = dx * (y - best_ny) - dy * (x - best_nx)  # > 0: left of the segment's direction
    cross = best_gap if side >= 0 else -best_gap
    return starts[best] + best_t * segments[best], cross, math.atan2(dy, dx)


@kernel
def path_point_at(kind: int, closed: bool, length: float, circle: np.ndarray, points: np.ndarray,
                  deltas: np.ndarray, segments: np.ndarray, starts: np.ndarray, s: float) -> tuple:
    """The path point (x, y) [m] at arc length s [m] (wrapped on closed paths, clamped on open ones)."""
    if kind == CIRCLE:
        radius = circle[2]
        angle = circle[4] + (s / radius if circle[3] != 0.0 else -s / radius)
        return circle[0] + radius * math.cos(angle), circle[1] + radius * math.sin(angle)
    s = s % length if closed else min(max(s, 0.0), length)
    k = 0
    while k + 1 < starts.shape[0] and starts[k + 1] <= s:
        k += 1
    k = min(k, segments.shape[0] - 1)
    t = (s - starts[k]) / segments[k]
    return points[k, 0] + t * deltas[k, 0], points[k, 1] + t * deltas[k, 1]


@kernel
def path_start(pose: np.ndarray, kind: int, closed: bool, length: float, circle: np.ndarray, points: np.ndarray,
               deltas: np.ndarray, segments: np.ndarray, starts: np.ndarray, s_out: np.ndarray,
               cross_track_out: np.ndarray) -> None:
    """Each copy's nearest path point at reset: its arc length [m] into s_out (N,), its cross-track error [m] into
    cross_track_out (N,)."""
    for k in range(pose.shape[0]):
        s, cross, _ = path_project(kind, closed, length, circle, points, deltas, segments, starts,
                                   pose[k, 0], pose[k, 1])
        s_out[k] = s
        cross_track_out[k] = cross


@kernel
def path_observation(pose: np.ndarray, kind: int, closed: bool, length: float, circle: np.ndarray,
                     points: np.ndarray, deltas: np.ndarray, segments: np.ndarray, starts: np.ndarray,
                     lookahead: float, observation_out: np.ndarray) -> None:
    """Each copy's view of the path into observation_out[k, :4]: cross-track error [m], heading error [rad] (path
    heading - vehicle heading, in [-pi, pi)), and the path point `lookahead` [m] ahead of the nearest one in the
    vehicle frame (dx, dy [m])."""
    for k in range(pose.shape[0]):
        x, y, yaw = pose[k, 0], pose[k, 1], pose[k, 2]
        s, cross, heading = path_project(kind, closed, length, circle, points, deltas, segments, starts, x, y)
        ax, ay = path_point_at(kind, closed, length, circle, points, deltas, segments, starts, s + lookahead)
        dx, dy, _ = relative_goal(x, y, yaw, ax, ay, 0.0)
        observation_out[k, 0] = cross
        observation_out[k, 1] = (heading - yaw + math.pi) % (2.0 * math.pi) - math.pi
        observation_out[k, 2] = dx
        observation_out[k, 3] = dy


@kernel
def path_follow_step(pose: np.ndarray, collided: np.ndarray, s: np.ndarray, kind: int, closed: bool,
                     length: float, circle: np.ndarray, points: np.ndarray, deltas: np.ndarray,
                     segments: np.ndarray, starts: np.ndarray, progress_weight: float, cross_track_weight: float,
                     max_cross_track: float, collision_penalty: float, end_on_collision: bool,
                     end_tolerance: float, reward_out: np.ndarray, terminated_out: np.ndarray,
                     cross_track_out: np.ndarray, progress_out: np.ndarray) -> None:
    """One step of PathFollow for N copies.

    pose (N, 3) [m, m, rad] after the step; collided (N,) bool; s (N,) [m]: the arc length before the step,
    replaced by the one after it. Progress [m]: the arc length gained (the shorter way round on closed paths) into
    progress_out (N,); cross-track error [m] into cross_track_out (N,); reward progress_weight * progress -
    cross_track_weight * |cross-track error|, - collision_penalty on a collision, into reward_out (N,);
    terminated_out (N,): off the path by more than max_cross_track [m], within end_tolerance [m] of the end of an
    open path, or a collision when end_on_collision.
    """
    for k in range(pose.shape[0]):
        now, cross, _ = path_project(kind, closed, length, circle, points, deltas, segments, starts,
                                     pose[k, 0], pose[k, 1])
        gained = now - s[k]
        if closed:  # the shorter way round: passing the start point is progress, not a lap lost
            gained = (gained + 0.5 * length) % length - 0.5 * length
        s[k] = now
        cross_track_out[k] = cross
        progress_out[k] = gained
        reward = progress_weight * gained - cross_track_weight * abs(cross)
        reward_out[k] = reward - (collision_penalty if collided[k] else 0.0)
        at_end = not closed and now >= length - end_tolerance
        terminated_out[k] = abs(cross) > max_cross_track or at_end or (end_on_collision and collided[k])
