"""2D lidar (MVSim's `laser` sensor) by ray casting in the Box2D world.

Beams are spread evenly over the field of view, from -fov/2 (right) to +fov/2 (left), counter-clockwise as
sensor_msgs/LaserScan orders them. A beam returns the distance to the first solid fixture it meets: occupancy-grid
walls, <walls>, vertical planes, blocks and actors whose height span contains the sensor's height (from their
initial z: a block's zmin..zmax, an actor's 0..collision_height), and other vehicles when
`bodies_visible` is true (never the sensor's own vehicle, never intangible bodies). Beyond max_range (or
below range_min) a beam reads +inf ("no return", REP 117; `limit_ranges`, which every path applies). Noise: a
Gaussian range error (range_std_noise [m]) and a Gaussian bearing error (angle_std_noise_deg) per beam, from a
seeded generator (MVSim's defaults: 0.01 m and 0.01 deg, so a lidar without noise tags is noisy; set both to 0 for
exact ranges).

`raytrace_3d` true: the ranges are measured on the GPU instead (`render_scan`), so the beam sees 3D shapes (a
table top above the beam, a block below it: no return). The scene is rendered as one to four depth faces side by
side covering the field of view (each <= 90 deg wide, a few rows tall, the beam plane through the middle row) from
the sensor's full `<pose_3d>`; each beam reads its exact sub-pixel column by linear interpolation of inverse depth
(exact on planar surfaces; the nearest pixel where a neighbour has no return). Same noise and range limits as
the 2D path; other vehicles are seen only with bodies_visible, and the sensor's own vehicle is rendered (and seen)
unless `ignore_parent_body` is true, as in MVSim (the 2D path never sees it).

Parameters: the spec's LaserParams (world/specs/sensor_params.py; names, units and defaults in
world/params/sensor_tables.py, sensor.laser). The sensor's height is
the z of its pose (`height`, or `pose_3d`): the 2D path uses it to tell which blocks and actors its plane cuts.
"""

from __future__ import annotations

import math
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import Box2D
import numpy as np

from mvsim_ros.core.jit import allocation_free_kernel
from mvsim_ros.core.schedule import Periodic
from mvsim_ros.physics import box2d_native
from mvsim_ros.physics.bodies import BodyTag
from mvsim_ros.sensors.host_placement import host_matrix, matrix_pose6, pose6
from mvsim_ros.world.specs import LaserParams, SensorSpec, WorldSpec

if TYPE_CHECKING:  # the GL side is imported where the GPU path runs, so that 2D ray casting never loads it
    from mvsim_ros.sensors.camera import Intrinsics, RenderView


@dataclass
class LidarParams:
    """Parameters of a 2D lidar: fov [rad], rays, range_min/max [m], noise std [m, rad], period [s]; defaults and
    names: world/params/sensor_tables.py (sensor.laser)."""

    fov: float
    rays: int
    range_min: float
    range_max: float
    range_noise: float
    angle_noise: float
    bodies_visible: bool
    period: float
    raytrace_3d: bool
    ignore_parent_body: bool

    @classmethod
    def from_laser(cls, laser: LaserParams) -> "LidarParams":
        """The lidar's parameters from its spec's (world/specs/sensor_params.py LaserParams)."""
        return cls(fov=laser.fov_degrees, rays=laser.nrays, range_min=laser.range_min, range_max=laser.max_range,
                   range_noise=laser.range_std_noise, angle_noise=laser.angle_std_noise_deg,
                   bodies_visible=laser.bodies_visible, period=laser.sensor_period, raytrace_3d=laser.raytrace_3d,
                   ignore_parent_body=laser.ignore_parent_body)

    @property
    def angles(self) -> np.ndarray:
        """Beam bearings in the sensor frame [rad]."""
        return np.linspace(-0.5 * self.fov, 0.5 * self.fov, self.rays)


@allocation_free_kernel
def limit_ranges(ranges, range_min, range_max):
    """In place over the 1-D float64 `ranges` [m]: every range outside [range_min, range_max] [m] (and NaN) becomes
    +inf, no return (REP 117). The one range limit of every 2D scan: `Lidar2D.scan`, `Lidar2D.collect_render` and the
    compiled fast path (runtime/fast_path/scans.py serve_scans) all call it."""
    for j in range(ranges.size):
        if not range_min <= ranges[j] <= range_max:
            ranges[j] = math.inf


class DepthFaces(NamedTuple):
    """The depth faces a raytrace_3d scan renders side by side over the field of view: their `intrinsics` (one
    face's), each face's 4x4 optical pose on the host (`host_from_faces`, host <- face
    optical), the bearings of their centres [rad] and their angular width [rad] (<= 90 deg)."""

    intrinsics: Intrinsics
    host_from_faces: list[np.ndarray]
    centres: np.ndarray
    width: float


class ScanSample(NamedTuple):
    """A lidar's latest scan: `ranges` [m] of every beam (+inf: no return) and the sensor's world pose when it
    scanned, `pose` = (x, y, z, yaw, pitch, roll) [m, rad] (beam k leaves along bearing `angles[k]` in the sensor
    frame's xy plane; the 2D ray-cast path scans the horizontal plane: pitch = roll = 0)."""

    ranges: np.ndarray
    pose: tuple[float, float, float, float, float, float]


class _ClosestHit(Box2D.b2RayCastCallback):
    """Box2D ray callback keeping the nearest fixture the filter accepts."""

    def __init__(self, accept):
        super().__init__()
        self.accept = accept
        self.fraction = None

    def ReportFixture(self, fixture, point, normal, fraction):  # noqa: N802 (Box2D API name)
        if fixture.sensor or not self.accept(fixture.body.userData):
            return -1.0  # ignore this fixture, keep looking
        self.fraction = fraction
        return fraction  # clip the ray here: only nearer hits are reported afterwards


class Lidar2D:
    """One 2D lidar on vehicle `vehicle` (index) at `spec.pose`, scanning the simulation's Box2D world."""

    def __init__(self, spec: SensorSpec, vehicle: int, world: WorldSpec, rng: np.random.Generator):
        self.spec = spec
        self.vehicle = vehicle
        self.params = LidarParams.from_laser(spec.params)
        self.rng = rng
        self._angles = self.params.angles
        #: Noise drawn ahead for scans measured elsewhere (noise_ahead), and the first not used yet.
        self._ahead = np.zeros((0, 2, self.params.rays))
        self._ahead_next = 0
        #: Scans' worth of noise taken so far (by scans here and by `skip_noise`): where the noise stream stands.
        self.noise_taken = 0
        z = spec.pose.z
        self._visible_blocks = [b.init_pose.z + b.zmin <= z <= b.init_pose.z + b.zmax for b in world.blocks]
        self._visible_actors = [a.init_pose.z <= z <= a.init_pose.z + a.collision_height for a in world.actors]
        self.schedule = Periodic(self.params.period)
        #: Measure on the GPU (`render_scan`); the publisher clears it when no OpenGL context can be made.
        self.raytrace_3d = self.params.raytrace_3d
        self._faces = None
        #: The host's 4x4 pose of the scan submit_render drew last.
        self._submitted = None
        #: 4x4 placement of the sensor on its host (host frame <- sensor frame).
        mount = spec.pose
        self._mount_matrix = host_matrix((mount.x, mount.y, mount.z, mount.yaw, mount.pitch, mount.roll))
        self._targets: dict = {}
        #: The latest scan (`scan` or `render_scan`), None before the first.
        self.latest: ScanSample | None = None
        #: Addresses of the bodies this lidar does not see, and the (world, body count, bodies_visible) they were
        #: listed for.
        self._hidden = np.zeros(0, dtype=np.intp)
        self._hidden_for: tuple | None = None
        #: The shim's index of the world's static bodies (box2d_native.SceneIndex), and (a weak reference to) the
        #: world it is for: a later world at the same address must not find it.
        self._index = None
        self._index_for: weakref.ref | None = None

    def _accept(self, tag) -> bool:
        if not isinstance(tag, BodyTag):
            return True
        if tag.kind == "vehicle":
            return tag.index != self.vehicle and self.params.bodies_visible
        if tag.kind == "block":
            return self._visible_blocks[tag.index]
        if tag.kind == "actor":
            return self._visible_actors[tag.index]
        return True

    def due(self, now: float) -> bool:
        """True (and the next sample scheduled) when a sample is due at simulated time `now` [s]."""
        return self.schedule.due(now)

    def scan(self, box2d_world: Box2D.b2World, vehicle_pose: np.ndarray) -> np.ndarray:
        """Ranges [m] of every beam (+inf: no return) from the sensor's current world pose, ray cast on the Box2D
        bodies in the horizontal plane (MVSim's 2D mode: the host's pitch and roll do not tilt the beams)."""
        x, y, z, yaw = pose6(vehicle_pose)[:4]
        pose = self.spec.pose
        c, s = math.cos(yaw), math.sin(yaw)
        origin = (x + c * pose.x - s * pose.y, y + s * pose.x + c * pose.y)
        p = self.params
        bearing_error, range_error = self._next_noise()
        bearings = yaw + pose.yaw + self._angles
        if p.angle_noise > 0:
            bearings = bearings + bearing_error
        ranges = self.ray_cast(box2d_world, origin, bearings)
        if p.range_noise > 0:
            ranges = ranges + range_error
        limit_ranges(ranges, float(p.range_min), float(p.range_max))
        self.latest = ScanSample(ranges, (origin[0], origin[1], z + pose.z, yaw + pose.yaw, 0.0, 0.0))
        return ranges

    @property
    def noisy(self) -> bool:
        """Whether the scans carry bearing or range noise."""
        return self.params.angle_noise > 0 or self.params.range_noise > 0

    def noise_ahead(self, count: int) -> np.ndarray:
        """The bearing and range errors [rad, m] of the next `count` scans, (count, 2, rays) (zeros where that
        noise is off): drawn now from the lidar's generator where not drawn yet, in the order the scans draw them,
        so a scan measured elsewhere (the compiled path) with these numbers equals `scan`'s. `skip_noise` then
        marks the ones used."""
        left = len(self._ahead) - self._ahead_next
        if left < count:
            new = np.zeros((count - left, 2, self.params.rays))
            self._draw_noise(new)
            self._ahead = np.concatenate([self._ahead[self._ahead_next:], new])
            self._ahead_next = 0
        return self._ahead[self._ahead_next:self._ahead_next + count]

    def skip_noise(self, count: int) -> None:
        """Mark the first `count` blocks of `noise_ahead` as used by scans measured elsewhere."""
        taken = min(len(self._ahead) - self._ahead_next, count)
        self._ahead_next += taken
        self.noise_taken += taken

    def _draw_noise(self, blocks: np.ndarray) -> None:
        """Fill `blocks` (scans, 2, rays) with the bearing and range errors [rad, m] of that many scans, drawn in one
        call in the order scans drawing their own would: each scan's bearing errors, then its range errors (a
        noise that is off is not drawn and stays zero)."""
        p = self.params
        # Standard normals times the deviation: the numbers Generator.normal(0, std) gives, drawn twice as fast.
        if p.angle_noise > 0 and p.range_noise > 0:
            blocks[:] = self.rng.standard_normal(blocks.shape)
            blocks[:, 0] *= p.angle_noise
            blocks[:, 1] *= p.range_noise
        elif p.angle_noise > 0:
            blocks[:, 0] = self.rng.standard_normal((len(blocks), p.rays)) * p.angle_noise
        elif p.range_noise > 0:
            blocks[:, 1] = self.rng.standard_normal((len(blocks), p.rays)) * p.range_noise

    def _next_noise(self) -> tuple[np.ndarray, np.ndarray]:
        """This scan's bearing and range errors: the next of those drawn ahead, else drawn now."""
        self.noise_taken += 1
        if self._ahead_next < len(self._ahead):
            block = self._ahead[self._ahead_next]
            self._ahead_next += 1
        else:
            block = np.zeros((2, self.params.rays))
            self._draw_noise(block[np.newaxis])
        return block[0], block[1]

    def hidden_bodies(self, box2d_world: Box2D.b2World) -> np.ndarray:
        """Sorted addresses (box2d_native.address) of the bodies this lidar does not see: its own vehicle, other
        vehicles without bodies_visible, blocks and actors outside the beam's height. The same array object while
        the world's body set (and bodies_visible) stays the same."""
        key = (id(box2d_world), box2d_world.bodyCount, self.params.bodies_visible)
        if self._hidden_for != key:
            hidden = sorted(box2d_native.address(b) for b in box2d_world.bodies if not self._accept(b.userData))
            self._hidden, self._hidden_for = np.array(hidden, dtype=np.intp), key
        return self._hidden

    def static_index_address(self, box2d_world: Box2D.b2World) -> int:
        """Address of the shim's index of the world's static bodies (box2d_native.SceneIndex: ground fixtures and
        static blocks, kept up to date by the shim), shared by the world's lidars. The shim must be AVAILABLE."""
        if self._index_for is None or self._index_for() is not box2d_world:
            self._index = box2d_native.scene_index(box2d_world)
            self._index_for = weakref.ref(box2d_world)
        return self._index.address

    def ray_cast(self, box2d_world: Box2D.b2World, origin: tuple[float, float], bearings: np.ndarray) -> np.ndarray:
        """Ranges [m] (+inf: nothing within range_max) of beams from `origin` (x, y) [m] along world `bearings`
        [rad], seeing what this lidar sees, without noise or range_min: `scan`'s ray cast alone. In one compiled
        call through the Box2D shim when it is there, else one pybox2d ray cast (and Python callback) per beam;
        both give the same numbers."""
        range_max = self.params.range_max
        if box2d_native.AVAILABLE:
            return box2d_native.ray_scan(box2d_native.address(box2d_world), self.static_index_address(box2d_world),
                                         origin, bearings, range_max, self.hidden_bodies(box2d_world))
        ranges = np.full(bearings.size, np.inf)
        hit = _ClosestHit(self._accept)
        for i, bearing in enumerate(bearings.tolist()):
            end = (origin[0] + range_max * math.cos(bearing), origin[1] + range_max * math.sin(bearing))
            hit.fraction = None
            box2d_world.RayCast(hit, origin, end)
            if hit.fraction is not None:
                ranges[i] = hit.fraction * range_max
        return ranges

    # --- GPU path (raytrace_3d) ---------------------------------------------------------------------------------

    def depth_faces(self) -> DepthFaces:
        """The depth faces of the GPU path (made on first use, then kept)."""
        if self._faces is None:
            self._faces = self._face_layout()
        return self._faces

    def render_views(self) -> list[RenderView]:
        """The views a GPU scan draws: each depth face, depths only."""
        from mvsim_ros.sensors.camera import RenderView

        faces = self.depth_faces()
        return [RenderView(faces.intrinsics, m, False, True) for m in faces.host_from_faces]

    def _face_layout(self) -> DepthFaces:
        """The depth faces covering the field of view, each <= 90 deg wide, beams at their edges one pixel inside."""
        from mvsim_ros.sensors.camera import BODY_TO_OPTICAL, Intrinsics, pose3_matrix

        p = self.params
        n = max(1, math.ceil(p.fov / (math.pi / 2) - 1e-9))
        width = p.fov / n  # angular width of a face [rad], <= 90 deg
        per_face = p.rays / n
        cols = max(1024, int(4 * per_face))
        cols += cols % 2
        f = 0.5 * (cols - 2) / math.tan(0.5 * width)  # edge beams one pixel inside
        near = max(0.005, min(0.05, 0.5 * p.range_min))
        intr = Intrinsics(cols, 3, (cols - 1) / 2, 1.0, f, f, near, 2 * p.range_max)
        centres = -0.5 * p.fov + (np.arange(n) + 0.5) * width
        rot = self.spec.pose.rotation()
        mats = [pose3_matrix(self.spec.pose, rot @ _rz(c) @ BODY_TO_OPTICAL) for c in centres]
        return DepthFaces(intr, mats, centres, width)

    def _unrendered(self, count: int) -> np.ndarray:
        """Which of `count` vehicles are not rendered: the own one with ignore_parent_body, every one without
        bodies_visible."""
        if not self.params.bodies_visible:
            return np.ones(count, bool)
        return (np.arange(count) == self.vehicle) & self.params.ignore_parent_body

    def render_scan(self, scene, vehicle_pose) -> np.ndarray:
        """Ranges [m] of every beam (+inf: no return) measured by rendering `scene` (a sensors.scene.Scene) on
        the GPU from the sensor's current pose, the host at (x, y, yaw) or (x, y, z, yaw, pitch, roll): a lidar
        tilted with its vehicle on a slope sees the ground where its beams reach it. `submit_render` then
        `collect_render`, which a caller may split to let the renderer draw other views in between."""
        self.submit_render(scene, vehicle_pose)
        return self.collect_render()

    def submit_render(self, scene, vehicle_pose) -> None:
        """Draw the scan's depth faces from the sensor's current pose (render_scan's first half; the renderer may
        still be drawing when this returns)."""
        from mvsim_ros.sensors.camera import RenderTarget, draw_view

        intr, mats, _, _ = self.depth_faces()
        base = host_matrix(vehicle_pose)
        # One framebuffer per face, all drawn before any is read: one wait for the renderer per scan.
        for k in range(len(mats)):
            if k not in self._targets:
                self._targets[k] = RenderTarget(scene.ctx, intr.ncols, intr.nrows)
        with vehicles_hidden(scene, self._unrendered):
            for k, m in enumerate(mats):
                draw_view(scene, self._targets[k], intr, base @ m, want_rgb=False)
        self._submitted = base

    def collect_render(self) -> np.ndarray:
        """The ranges [m] of the faces `submit_render` drew (render_scan's second half)."""
        from mvsim_ros.sensors.camera import read_view

        intr, mats, centres, width = self._faces
        p = self.params
        base = self._submitted
        rows = np.stack([read_view(self._targets[k], intr, False, True).depth[1]
                         for k in range(len(mats))]).astype(float)
        bearing_error, range_error = self._next_noise()
        bearings = self._angles
        if p.angle_noise > 0:
            bearings = bearings + bearing_error
        face = np.clip(np.floor((bearings + 0.5 * p.fov) / width).astype(int), 0, len(centres) - 1)
        delta = bearings - centres[face]
        cols = intr.ncols
        u = np.clip(intr.cx - intr.fx * np.tan(delta), 0, cols - 1.000001)
        u0 = np.floor(u).astype(int)
        fu = u - u0
        flat = rows.reshape(-1)
        z0, z1 = flat[face * cols + u0], flat[face * cols + u0 + 1]
        with np.errstate(divide="ignore"):
            z = 1.0 / ((1 - fu) / z0 + fu / z1)
        nearest = flat[face * cols + np.rint(u).astype(int)]
        z = np.where(np.isfinite(z0) & np.isfinite(z1), z, nearest)
        ranges = z / np.cos(delta)
        if p.range_noise > 0:
            ranges = ranges + range_error
        limit_ranges(ranges, float(p.range_min), float(p.range_max))
        self.latest = ScanSample(ranges, matrix_pose6(base @ self._mount_matrix))
        return ranges


#: Where hidden vehicles are placed while a lidar renders [m]: beyond any far plane.
_FAR_AWAY = 1e7


@contextmanager
def vehicles_hidden(scene, hidden):
    """Move the vehicles that `hidden(count)` marks (a boolean mask over the scene's vehicles) far out of sight
    while rendering `scene`."""
    saved = getattr(scene, "vehicle_poses", None)
    if not isinstance(saved, np.ndarray) or saved.ndim != 2 or len(saved) == 0:
        yield
        return
    hide = hidden(len(saved))
    if not hide.any():
        yield
        return
    moved = saved.copy()
    moved[hide, :2] = _FAR_AWAY
    scene.vehicle_poses = moved
    try:
        yield
    finally:
        scene.vehicle_poses = saved


def _rz(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
