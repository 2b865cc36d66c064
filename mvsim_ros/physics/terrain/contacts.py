"""Where each body touches the ground, the 3D attitude that fits those contacts, and gravity along the slope.

Support points: every body (a vehicle, or an articulated vehicle's front unit) touches the ground at its wheels'
contact points, (x, y, 0) in its own frame. A body whose wheels do not span a plane (two wheels: MVSim's
`differential` robots, a trailer, each unit of an articulated vehicle) gets extra points, as MVSim does for a
two-wheel trailer: the joint anchor (a world-file joint, or the articulation pivot) at ground level; and when that
is not enough either (no joint), the ends of its chassis outline across the wheel line (where a caster or the
chassis would rest). Each point looks for the ground one step above its current contact height: the wheel's
radius (MVSim: the query starts at the wheel axle), 0.5 m for a joint anchor (MVSim's value).

Fit (MVSim's terrain phase, twice per step from the last pose): each support point is placed with the body's
current 3D pose (x, y, yaw from Box2D; z, pitch, roll from the last fit), the ground is queried under it, and a
least-squares plane h = z0 + a u + b v is fitted to the heights over the points' horizontal offsets (u, v) in the
yaw-aligned frame. Then z = z0 (the plane under the body origin), pitch = -atan(a), roll = atan2(b, sqrt(1 + a^2)):
the body's z axis is the plane's upward normal. When every point finds the same height the body is level.

Angles follow REP-103 with R = Rz(yaw) Ry(pitch) Rx(roll): pitch > 0 is nose DOWN (a body facing uphill has
pitch < 0), roll > 0 is the left side UP.

Gravity (MVSim docs, "Gravity Slope Handling"; MVSim's VehicleBase): the body-frame components of gravity on a
wheel's share of mass, m_share g (sin(pitch), -cos(pitch) sin(roll)), go to the friction model (which holds
them within its limit) and act on the body at the wheel; the wheel's load is its flat-ground share times
cos(pitch) cos(roll), the cosine of the body's tilt.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.terrain.surfaces import ground_heights
from mvsim_ros.physics.wheels import WheelArrays
from mvsim_ros.world.specs import WorldSpec

#: Height [m] above its contact point at which a joint anchor looks for the ground (MVSim's value).
ANCHOR_STEP_M = 0.5
#: Fit passes per step, each from the pose the previous one found (MVSim's).
FIT_ITERATIONS = 2
#: Heights closer than this [m] count as equal: the body is then level.
LEVEL_TOLERANCE_M = 1e-9


@dataclass
class SupportPoints:
    """Ground contact points of every body, grouped by body (rows start[b]:start[b + 1] belong to body b).

    table (S, 3): x, y: position in the body frame [m]; step [m]: how far above its contact height the point
    looks for the ground; wheel: the wheel index (into WheelArrays) of a wheel's point, -1 for an extra point.
    seat_height [m] (per body): the height above z = 0 from which a body looks for the ground it starts on
    (MVSim: half the chassis zmax).
    """

    table: np.ndarray
    wheel: np.ndarray
    start: np.ndarray
    seat_height: np.ndarray

    @property
    def body_count(self) -> int:
        """Number of bodies."""
        return int(self.start.size - 1)

    @property
    def max_step(self) -> float:
        """The largest step [m] any point takes up."""
        return float(self.table[:, 2].max()) if len(self.table) else 0.0

    @classmethod
    def build(cls, world: WorldSpec, wheels: WheelArrays) -> "SupportPoints":
        """Support points of the bodies of `world` (vehicles, then articulated front units, as WheelArrays.body)."""
        vehicles = world.vehicles
        n = len(vehicles)
        units = [k for k, v in enumerate(vehicles) if v.articulation is not None]
        anchors = _joint_anchors(world)
        rows, start, seats = [], [0], []
        for b in range(n + len(units)):
            k = b if b < n else units[b - n]
            vehicle = vehicles[k]
            chassis = vehicle.chassis if b < n else vehicle.articulation.front_chassis
            mine = np.flatnonzero(wheels.body == b)
            points = [(float(wheels.x[i]), float(wheels.y[i]), float(wheels.radius[i]), int(i)) for i in mine]
            if not _spans_plane([(p[0], p[1]) for p in points]):
                if vehicle.articulation is not None:  # the pivot between the units
                    a = vehicle.articulation
                    points.append((a.rear_length if b < n else -a.front_length, 0.0, ANCHOR_STEP_M, -1))
                elif len(mine) == 2 and vehicle.name in anchors:  # MVSim: a two-wheel trailer's hitch
                    points.append((*anchors[vehicle.name], ANCHOR_STEP_M, -1))
            if not _spans_plane([(p[0], p[1]) for p in points]):
                radius = float(wheels.radius[mine].mean()) if mine.size else 0.1
                points += [(x, y, radius, -1) for x, y in _chassis_ends(points, chassis.shape, radius)]
            rows += points
            start.append(len(rows))
            seats.append(0.5 * chassis.zmax)
        table = np.array([r[:3] for r in rows], dtype=float).reshape(-1, 3)
        return cls(table, np.array([r[3] for r in rows], dtype=np.intp), np.array(start, dtype=np.intp),
                   np.array(seats, dtype=float))


def _joint_anchors(world: WorldSpec) -> dict[str, tuple[float, float]]:
    """Vehicle name -> its anchor (body frame [m]) in the first world-file joint naming it (MVSim's order)."""
    out: dict[str, tuple[float, float]] = {}
    for joint in world.joints:
        out.setdefault(joint.body_a, tuple(joint.anchor_a))
        out.setdefault(joint.body_b, tuple(joint.anchor_b))
    return out


def _spans_plane(points: list[tuple[float, float]]) -> bool:
    """Whether the points are at least three and not all on one line (within 1 mm over the set's size)."""
    if len(points) < 3:
        return False
    p = np.asarray(points, dtype=float)
    p = p - p.mean(axis=0)
    low = np.linalg.eigvalsh(p.T @ p / len(p))[0]
    return bool(low > 1e-6)


def _chassis_ends(points: list[tuple], shape, radius: float) -> list[tuple[float, float]]:
    """Two points across the line of the contact points (both axes when there is no line): the outline's extreme
    points along that direction through the points' centre [m]; +/- radius when the outline is flat there."""
    p = np.array([q[:2] for q in points], dtype=float).reshape(-1, 2)
    centre = p.mean(axis=0) if len(p) else np.zeros(2)
    outline = np.asarray(shape, dtype=float).reshape(-1, 2)
    if len(p) >= 2 and np.ptp(p, axis=0).max() > 1e-9:
        spread = (p - centre).T @ (p - centre)
        along = np.linalg.eigh(spread)[1][:, 1]
        directions = [np.array([-along[1], along[0]])]
    else:
        directions = [np.array([1.0, 0.0]), np.array([0.0, 1.0])]
    ends = []
    for d in directions:
        t = (outline - centre) @ d if len(outline) else np.zeros(1)
        low, high = float(t.min()), float(t.max())
        if high - low < 1e-6:
            low, high = -radius, radius
        ends += [tuple(centre + low * d), tuple(centre + high * d)]
    return ends


#: Columns of the per-body terrain state: height z [m], pitch, roll [rad], vertical speed vz [m/s], the fitted
#: plane's slopes a = dz/du, b = dz/dv in the body's yaw frame (pitch = -atan(a)), and the pitch and roll rates
#: [rad/s] (vz and the rates: their change over the last step).
STATE_COLUMNS = ("z", "pitch", "roll", "vz", "slope_u", "slope_v", "pitch_rate", "roll_rate")
#: Columns of the per-wheel table: body row, mass whose weight the wheel carries [kg], its level-ground load [N],
#: its position relative to its body's centre of mass [m].
WHEEL_COLUMNS = ("body", "share_mass", "flat_load", "arm_x", "arm_y")

#: What the fit reads and writes: state (B, 8) per STATE_COLUMNS (updated in place); start (B + 1,) intp: body b's
#: support points are rows start[b]:start[b + 1]; points (S, 3): x, y [m] in the body frame and the step [m] each
#: looks up from; ground (S,) [m]: the ground height found under each point in the last pass (written).
SupportFit = namedtuple("SupportFit", "state start points ground")

#: What the slope loads write: wheel_table (W, 5) per WHEEL_COLUMNS (read); slope (W, 2) [N]: gravity along the
#: ground on each wheel's share of mass, body frame; normal_force (W,) [N]: the wheels' loads; body_force (B, 3):
#: per body the sum of its wheels' slope forces and their torque about its centre of mass (F_x, F_y [N], tau_z
#: [N m], body frame).
SlopeLoads = namedtuple("SlopeLoads", "wheel_table slope normal_force body_force")


@kernel
def follow_terrain(pose, fit, loads, surfaces, gravity, dt, iterations):
    """The terrain phase in one call: fit every body (fit_body_poses, `iterations` passes), set vz and the pitch
    and roll rates over dt [s] (0: leave them), then the slope loads (slope_loads, gravity [m/s^2]).
    pose (B, 3): (x, y, yaw) of every body from Box2D [m, m, rad]; fit: SupportFit (its state updated in place);
    loads: SlopeLoads (written); surfaces: surfaces.SurfaceArrays."""
    state = fit.state
    previous = state[:, :3].copy()
    fit_body_poses(pose, fit, iterations, surfaces)
    if dt > 0.0:
        for b in range(previous.shape[0]):
            state[b, 3] = (state[b, 0] - previous[b, 0]) / dt
            state[b, 6] = (state[b, 1] - previous[b, 1]) / dt
            state[b, 7] = (state[b, 2] - previous[b, 2]) / dt
    slope_loads(state, loads, gravity)


@kernel
def fit_body_poses(pose, fit, iterations, surfaces):
    """Fit z [m], pitch, roll [rad] of every body to the ground under its support points (in place in fit.state,
    see STATE_COLUMNS and the module docstring), `iterations` passes. pose[b] = (x, y, yaw) from Box2D;
    fit: SupportFit, whose ground[i] receives the ground height [m] found under point i in the last pass;
    surfaces: surfaces.SurfaceArrays."""
    state, start, points = fit.state, fit.start, fit.points
    count, bodies = points.shape[0], start.size - 1
    us, vs = np.empty(count), np.empty(count)
    wx, wy, z_ref = np.empty(count), np.empty(count), np.empty(count)
    cos_yaw, sin_yaw = np.cos(pose[:bodies, 2]), np.sin(pose[:bodies, 2])
    for _ in range(iterations):
        # Every point placed with its body's current 3D pose (tilt from the plane slopes: no trigonometry), then
        # one query for all of them.
        for b in range(bodies):
            cy, sy = cos_yaw[b], sin_yaw[b]
            a, b_ = state[b, 4], state[b, 5]
            cp = 1.0 / math.sqrt(1.0 + a * a)  # cos(pitch); sin(pitch) = -a cos(pitch)
            norm = 1.0 / math.sqrt(1.0 + a * a + b_ * b_)
            cr, sr = norm / cp, b_ * norm  # cos(roll), sin(roll)
            sp = -a * cp
            for i in range(start[b], start[b + 1]):
                x, y = points[i, 0], points[i, 1]
                u = cp * x + sp * sr * y
                v = cr * y
                us[i], vs[i] = u, v
                wx[i] = pose[b, 0] + cy * u - sy * v
                wy[i] = pose[b, 1] + sy * u + cy * v
                z_ref[i] = state[b, 0] - sp * x + cp * sr * y + points[i, 2]
        fit.ground[:] = ground_heights(wx, wy, z_ref, surfaces)
        for b in range(bodies):
            fit_plane(state, b, start[b], start[b + 1], us, vs, fit.ground)
    for b in range(bodies):
        a, b_ = state[b, 4], state[b, 5]
        state[b, 1] = -math.atan(a)
        state[b, 2] = math.atan2(b_, math.sqrt(1.0 + a * a))


@kernel
def fit_plane(state, b, first, last, us, vs, ground):
    """Least-squares plane h = z0 + a u + b v through points first..last-1: state[b] gets z = z0 and the slopes
    (a, b); level (a = b = 0) at the mean height when all heights are equal."""
    if last == first:
        return
    count = last - first
    mu = mv = mh = 0.0
    low, high = math.inf, -math.inf
    for i in range(first, last):
        mu += us[i]
        mv += vs[i]
        mh += ground[i]
        low, high = min(low, ground[i]), max(high, ground[i])
    mu, mv, mh = mu / count, mv / count, mh / count
    a = b_ = 0.0
    if high - low > LEVEL_TOLERANCE_M:
        suu = svv = suv = suh = svh = 0.0
        for i in range(first, last):
            du, dv, dh = us[i] - mu, vs[i] - mv, ground[i] - mh
            suu += du * du
            svv += dv * dv
            suv += du * dv
            suh += du * dh
            svh += dv * dh
        det = suu * svv - suv * suv
        scale = suu + svv
        if det > 1e-12 * scale * scale:
            a = (suh * svv - svh * suv) / det
            b_ = (svh * suu - suh * suv) / det
        elif suu >= svv and suu > 0.0:  # points on a line: the slope along it only
            a = suh / suu
        elif svv > 0.0:
            b_ = svh / svv
        mh = mh - a * mu - b_ * mv
    state[b, 0] = mh
    state[b, 4] = a
    state[b, 5] = b_


@kernel
def slope_loads(state, loads, gravity):
    """Per wheel: gravity along the ground on its share of mass, body frame [N] (loads.slope[i] = (F_x, F_y)), and
    its normal load, the level-ground load times cos(pitch) cos(roll) [N] (loads.normal_force); per body: the sum
    of those gravity forces and their torque about the centre of mass, (F_x, F_y, tau_z) in the body frame
    [N, N, N m] (loads.body_force). From the plane slopes in state (pitch = -atan(a), roll = atan2(b,
    sqrt(1 + a^2)): sin(pitch) = -a cos(pitch), cos(pitch) sin(roll) = b n, cos(pitch) cos(roll) = n with
    n = 1 / sqrt(1 + a^2 + b^2)); loads: SlopeLoads (wheel_table read, the rest written in place); gravity
    [m/s^2]."""
    wheel_table, slope, normal_force, body_force = loads.wheel_table, loads.slope, loads.normal_force, loads.body_force
    bodies = state.shape[0]
    down_x, down_y, cosine = np.empty(bodies), np.empty(bodies), np.empty(bodies)
    for b in range(bodies):
        a, b_ = state[b, 4], state[b, 5]
        norm = 1.0 / math.sqrt(1.0 + a * a + b_ * b_)
        down_x[b] = -a / math.sqrt(1.0 + a * a)
        down_y[b] = -b_ * norm
        cosine[b] = norm
        body_force[b, 0] = body_force[b, 1] = body_force[b, 2] = 0.0
    for i in range(wheel_table.shape[0]):
        b = int(wheel_table[i, 0])
        weight = wheel_table[i, 1] * gravity
        fx = weight * down_x[b]
        fy = weight * down_y[b]
        slope[i, 0] = fx
        slope[i, 1] = fy
        normal_force[i] = wheel_table[i, 2] * cosine[b]
        body_force[b, 0] += fx
        body_force[b, 1] += fy
        body_force[b, 2] += wheel_table[i, 3] * fy - wheel_table[i, 4] * fx


@kernel
def wheel_frame_slopes(slope, wheel_cos, wheel_sin, slope_x, slope_y):
    """Slope forces slope[i] = (F_x, F_y) from the body frame into each wheel's frame (its steering angle's
    cos/sin), written into slope_x, slope_y [N]."""
    for i in range(slope.shape[0]):
        slope_x[i] = wheel_cos[i] * slope[i, 0] + wheel_sin[i] * slope[i, 1]
        slope_y[i] = -wheel_sin[i] * slope[i, 0] + wheel_cos[i] * slope[i, 1]


@kernel
def add_body_gravity(world_fx, world_fy, torque_z, body_force, yaw):
    """Add each body's slope gravity (body frame, from slope_loads) to its world-frame wrench, in place."""
    for b in range(yaw.size):
        c, s = math.cos(yaw[b]), math.sin(yaw[b])
        world_fx[b] += c * body_force[b, 0] - s * body_force[b, 1]
        world_fy[b] += s * body_force[b, 0] + c * body_force[b, 1]
        torque_z[b] += body_force[b, 2]


__all__ = ["ANCHOR_STEP_M", "FIT_ITERATIONS", "STATE_COLUMNS", "SlopeLoads", "SupportFit", "SupportPoints",
           "WHEEL_COLUMNS", "add_body_gravity",
           "fit_body_poses", "follow_terrain", "slope_loads", "wheel_frame_slopes"]
