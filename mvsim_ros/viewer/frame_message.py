"""The viewer's binary messages (see protocol.py): their framing, the "frame" of a simulation's current state and
the "image" of a camera's latest picture.

Framing: ``u32 n`` (little-endian: the JSON header's length in bytes), the header, zero bytes up to a multiple of
4, then the float32 arrays the header lists (row-major, back to back), then any raw tail bytes.
"""

from __future__ import annotations

import io
import json
import math
import struct

import numpy as np

from mvsim_ros.physics.footprint import towed_vehicles, train_footprint
from mvsim_ros.sensors.scene_meshes import plane_poses, plane_tracks
from mvsim_ros.viewer.protocol import MAX_CLOUD_POINTS
from mvsim_ros.world.specs import Pose3

#: JPEG quality of camera images sent to the page (Pillow's scale, 1..95).
JPEG_QUALITY = 80
#: Columns of the frame's "vehicles" array: x, y, yaw, forward speed, lateral speed, yaw rate, steering angle,
#: collision (see protocol.py).
VEHICLE_COLUMNS = 8


def pack_message(header: dict, arrays=(), tail: bytes = b"") -> bytes:
    """One binary message: `header` (a JSON-able dict; its "arrays" entry is set here from `arrays`, a sequence of
    (name, 2-D array)), the arrays as little-endian float32, then `tail`."""
    table, blobs = [], []
    for name, array in arrays:
        a = np.asarray(array, dtype="<f4")
        if a.ndim != 2:
            raise ValueError(f"array {name!r} must be 2-D, has shape {a.shape}")
        table.append([str(name), int(a.shape[0]), int(a.shape[1])])
        blobs.append(a.tobytes())
    text = json.dumps({**header, "arrays": table}, separators=(",", ":")).encode("utf-8")
    return b"".join([struct.pack("<I", len(text)), text, b"\0" * (-len(text) % 4), *blobs, bytes(tail)])


def unpack_message(data: bytes) -> tuple[dict, dict[str, np.ndarray], bytes]:
    """(header, arrays by name (read-only float32 views), tail bytes) of a message made by `pack_message`."""
    (n,) = struct.unpack_from("<I", data, 0)
    header = json.loads(bytes(data[4:4 + n]).rstrip(b"\0").decode("utf-8"))
    offset = 4 + n + (-n % 4)
    arrays = {}
    for name, rows, cols in header.get("arrays", []):
        count = int(rows) * int(cols)
        arrays[name] = np.frombuffer(data, dtype="<f4", count=count, offset=offset).reshape(int(rows), int(cols))
        offset += 4 * count
    return header, arrays, bytes(data[offset:])


def _finite(value: float) -> float:
    value = float(value)
    return value if math.isfinite(value) else 0.0


def _rotation(yaw: float, pitch: float, roll: float) -> np.ndarray:
    return Pose3(yaw=yaw, pitch=pitch, roll=roll).rotation()


class FrameEncoder:
    """Encodes the frames and camera images of one Simulation (physics) and its Sensors (or None).

    Everything static (table sizes, plane tracks, beam directions, trains) is prepared here; `frame()` copies the
    current state into preallocated float32 tables. A scan or cloud is converted to world points once per new
    sample (the sensors keep their latest output, see `latest` in sensors/), not once per frame.
    """

    def __init__(self, sim, sensors=None):
        self.sim = sim
        spec = sim.spec
        self._bodies = np.zeros((len(sim.body_pose), 6), dtype=np.float32)
        self._has_blocks = len(spec.blocks) > 0
        self._planes = plane_poses(spec).astype(np.float32)
        self._tracks = [(k, track) for k, track in enumerate(plane_tracks(spec)) if track is not None]
        self._actors = np.zeros((len(spec.actors), 4), dtype=np.float32)
        self._wheels = np.zeros((sim.wheels.count, 3), dtype=np.float32)
        self._vehicles = np.zeros((len(sim.vehicle_names), VEHICLE_COLUMNS), dtype=np.float32)
        #: (vehicle index, its row in the simulation's steering or articulation arrays) of steerable vehicles.
        self._steered = [(int(k), j) for j, k in enumerate(sim.steering.vehicle.tolist())]
        self._articulated = [(int(k), j) for j, k in enumerate(sim.articulations.vehicle.tolist())]
        self._trains = sorted(towed_vehicles(spec).items())
        self.lidars = list(sensors.lidars) if sensors is not None else []
        self.lidars3d = list(sensors.lidars3d) if sensors is not None else []
        self.cameras = list(sensors.cameras) if sensors is not None else []
        #: Per 2D lidar: unit beam directions in the sensor frame (N, 3) and its max range [m].
        self._beams = [np.stack([np.cos(lidar.params.angles), np.sin(lidar.params.angles),
                                 np.zeros(lidar.params.rays)], axis=1) for lidar in self.lidars]
        self._scans: list[tuple[object, np.ndarray] | None] = [None] * len(self.lidars)
        self._clouds: list[tuple[object, np.ndarray] | None] = [None] * len(self.lidars3d)
        self._images_sent: dict[int, object] = {}

    def frame(self, version: int, paused: bool, rtf: float, rtf_target: float = 0.0) -> bytes:
        """The protocol's frame of the simulation's current state (see protocol.py for the arrays); rtf: the
        measured real-time factor, rtf_target: the one aimed at (0: as fast as possible)."""
        sim = self.sim
        bodies = self._bodies
        pose3 = getattr(sim, "body_pose3", None)  # (B, 6) x y z yaw pitch roll, once the physics has terrain
        if pose3 is not None:
            bodies[:] = pose3
        else:
            pose = sim.body_pose
            bodies[:, :2] = pose[:, :2]
            bodies[:, 3] = pose[:, 2]
        arrays = [("bodies", bodies)]
        if len(self._vehicles):
            arrays.append(("vehicles", self._vehicle_states()))
        if self._has_blocks:
            arrays.append(("blocks", sim.block_poses3()))
        if len(self._planes):
            for k, track in self._tracks:
                self._planes[k] = track.pose(sim.time)
            arrays.append(("planes", self._planes))
        if len(self._actors):
            self._actors[:] = sim.actor_poses
            arrays.append(("actors", self._actors))
        if len(self._wheels):
            self._wheels[:, 0] = sim.wheels.phi
            self._wheels[:, 1] = sim.wheels.yaw
            self._wheels[:, 2] = sim.wheels.omega
            arrays.append(("wheels", self._wheels))
        for k in range(len(self.lidars)):
            scan = self._scan(k)
            if scan is not None:
                arrays.append((f"scan:{k}", scan))
        for k in range(len(self.lidars3d)):
            cloud = self._cloud(k)
            if cloud is not None:
                arrays.append((f"points:{k}", cloud))
        for head, train in self._trains:
            arrays.append((f"footprint:{head}", self._footprint(head, train)))
        header = {"type": "frame", "version": int(version), "time": _finite(sim.time), "paused": bool(paused),
                  "rtf": _finite(rtf), "rtf_target": _finite(rtf_target)}
        return pack_message(header, arrays)

    def _vehicle_states(self) -> np.ndarray:
        """(V, VEHICLE_COLUMNS) float32: each vehicle's pose, body-frame velocity, steering and collision state
        (the "vehicles" array of protocol.py)."""
        sim, out = self.sim, self._vehicles
        out[:, 0:3] = sim.pose
        out[:, 3:6] = sim.body_twist()
        out[:, 6] = 0.0
        for k, j in self._steered:
            out[k, 6] = sim.steering.delta[j]
        for k, j in self._articulated:
            out[k, 6] = sim.articulations.gamma[j]
        out[:, 7] = sim.collision_now
        return np.nan_to_num(out, copy=False, nan=0.0, posinf=0.0, neginf=0.0)

    def _scan(self, k: int) -> np.ndarray | None:
        """(N + 1, 3) float32: lidar k's origin, then each beam's world end point (max range: no return), along
        the beams' nominal bearings (a lidar's bearing noise is not drawn)."""
        sample = self.lidars[k].latest
        if sample is None:
            return None
        cached = self._scans[k]
        if cached is not None and cached[0] is sample:
            return cached[1]
        ranges, (x, y, z, yaw, pitch, roll) = sample
        reach = np.where(np.isfinite(ranges), ranges, self.lidars[k].params.range_max)
        out = np.empty((len(reach) + 1, 3), dtype=np.float32)
        out[0] = (x, y, z)
        out[1:] = (self._beams[k] @ _rotation(yaw, pitch, roll).T) * reach[:, None] + (x, y, z)
        self._scans[k] = (sample, out)
        return out

    def _cloud(self, k: int) -> np.ndarray | None:
        """(M, 3) float32: 3D lidar k's latest returns in the world frame, at most MAX_CLOUD_POINTS."""
        lidar = self.lidars3d[k]
        sample = lidar.latest
        if sample is None:
            return None
        cached = self._clouds[k]
        if cached is not None and cached[0] is sample:
            return cached[1]
        ranges, world_from_sensor = sample
        points, _ = lidar.points(ranges)
        if len(points) > MAX_CLOUD_POINTS:
            points = points[np.linspace(0, len(points) - 1, MAX_CLOUD_POINTS).astype(np.intp)]
        out = (points @ world_from_sensor[:3, :3].T.astype(np.float32)
               + world_from_sensor[:3, 3].astype(np.float32)).astype(np.float32)
        self._clouds[k] = (sample, out)
        return out

    def _footprint(self, head: int, train: list[int]) -> np.ndarray:
        """(F, 2) float32: the train's outline (vehicle `head` and its trailers) in the world frame."""
        sim = self.sim
        outline = np.asarray(train_footprint(sim.spec, sim.pose, head, train), dtype=float).reshape(-1, 2)
        x, y, yaw = sim.pose[head]
        c, s = math.cos(yaw), math.sin(yaw)
        return np.stack([x + c * outline[:, 0] - s * outline[:, 1], y + s * outline[:, 0] + c * outline[:, 1]],
                        axis=1).astype(np.float32)

    def image(self, camera_index: int) -> bytes | None:
        """The protocol's image message (JPEG) of camera `camera_index`'s latest RGB frame; None when it has none,
        the index is out of range, or the frame was already returned by an earlier call."""
        if not 0 <= camera_index < len(self.cameras):
            return None
        frame = self.cameras[camera_index].latest
        if frame is None or frame.rgb is None or self._images_sent.get(camera_index) is frame:
            return None
        from PIL import Image

        buffer = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(frame.rgb, dtype=np.uint8)).save(buffer, format="JPEG",
                                                                              quality=JPEG_QUALITY)
        data = buffer.getvalue()
        self._images_sent[camera_index] = frame
        header = {"type": "image", "camera": int(camera_index), "time": _finite(self.sim.time), "mime": "image/jpeg",
                  "bytes": len(data)}
        return pack_message(header, (), data)
