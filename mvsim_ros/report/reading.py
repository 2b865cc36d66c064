"""A recorded run as typed series: per vehicle its true path, wheel-odometry path, commands and collisions, plus
the world's occupancy grid; all times in seconds of simulated time from the first message of the file.

Topic names (a leading '/' is ignored; `<veh>/` is the vehicle's prefix, empty in a single-vehicle world):

- `<veh>/base_pose_ground_truth`, `<veh>/odom` (nav_msgs/msg/Odometry): pose x, y [m], yaw [rad]; twist in
  base_link: forward speed linear.x [m/s], yaw rate angular.z [rad/s]. Either topic makes `<veh>` a vehicle.
- `<veh>/cmd_vel` (geometry_msgs/msg/Twist or TwistStamped): commanded linear.x [m/s], angular.z [rad/s]. The
  node's recording keeps one type per topic: the other type's commands, when both came, are on
  `<veh>/cmd_vel/<Type>` (e.g. `/r1/cmd_vel/TwistStamped`, output/recording/channels.py); they are commands of the
  same vehicle and join its `cmd_vel` series, in time order (log time: when the node received each, as for the
  first type). The same holds for `<veh>/ackermann_cmd/<Type>`.
- `<veh>/ackermann_cmd` (ackermann_msgs/msg/AckermannDriveStamped or AckermannDrive): drive.speed [m/s],
  drive.steering_angle [rad].
- `<veh>/collision` (std_msgs/msg/Bool): true while the vehicle touches something.
- `simul_map` (nav_msgs/msg/OccupancyGrid, latched): the world's occupancy grid (the latest one recorded).

Besides the topics: the world's blocks from the attached world file (world_blocks.py) and the command watchdog
from the `mvsim` metadata record (watchdog.py).

A sample with a value that is not a finite number within ±VALUE_BOUND (NaN, inf, 1e308) is dropped and counted per
topic (`Run.invalid_samples`); a grid whose placement is not is not drawn (`Run.notes`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from mvsim_ros.report.recording import Recording, latest_only, read_recording
from mvsim_ros.report.watchdog import Watchdog, watchdog_of
from mvsim_ros.report.world_blocks import WORLD_METADATA, WorldBlocks, world_blocks

ODOMETRY = "nav_msgs/msg/Odometry"
TWIST_TYPES = ("geometry_msgs/msg/Twist", "geometry_msgs/msg/TwistStamped")
ACKERMANN_TYPES = ("ackermann_msgs/msg/AckermannDriveStamped", "ackermann_msgs/msg/AckermannDrive")
BOOL = "std_msgs/msg/Bool"
GRID = "nav_msgs/msg/OccupancyGrid"
MAP_TOPIC = "simul_map"
#: Name of a vehicle whose topics have no prefix (e.g. `/odom`).
DEFAULT_VEHICLE = "vehicle"
#: Largest magnitude a recorded value may have to be drawn: positions [m], speeds [m/s], yaw rates [rad/s], angles
#: [rad] alike.
VALUE_BOUND = 1e7


@dataclass
class Series:
    """Samples of one topic: times t [s] and named columns, numpy arrays of equal length."""

    t: np.ndarray
    columns: dict[str, np.ndarray]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def __len__(self) -> int:
        return len(self.t)


@dataclass
class CollisionSpan:
    """A time in contact: from `start` to `end` [s]; `open` when no false came before the end of the recording;
    (x, y) [m] the ground-truth position nearest in time to the start (None without ground truth)."""

    start: float
    end: float
    open: bool = False
    x: float | None = None
    y: float | None = None


@dataclass
class VehicleSeries:
    """Everything recorded of one vehicle. `truth` and `odom` have columns x, y [m], yaw [rad], v [m/s] (twist
    linear.x, base_link), w [rad/s] (twist angular.z); `cmd_vel` has v [m/s], w [rad/s]; `ackermann` has
    speed [m/s], steering [rad]. A series is None when its topic was not recorded."""

    name: str
    prefix: str
    truth: Series | None = None
    odom: Series | None = None
    cmd_vel: Series | None = None
    ackermann: Series | None = None
    collisions: list[CollisionSpan] = field(default_factory=list)

    def path_length(self) -> float:
        """Length of the ground-truth path [m] (0 without ground truth)."""
        if self.truth is None or len(self.truth) < 2:
            return 0.0
        return float(np.sum(np.hypot(np.diff(self.truth["x"]), np.diff(self.truth["y"]))))


@dataclass
class OccupancyMap:
    """An occupancy grid: cells [row, column] (row 0 at the origin's side, int8: -1 unknown, 0..100 occupancy in
    percent), cell size `resolution` [m], origin: the pose of cell (0, 0)'s corner, x, y [m], yaw [rad]."""

    cells: np.ndarray
    resolution: float
    origin_x: float
    origin_y: float
    origin_yaw: float = 0.0

    @property
    def size_m(self) -> tuple[float, float]:
        """(width, height) [m]."""
        return self.cells.shape[1] * self.resolution, self.cells.shape[0] * self.resolution

    def corners(self) -> np.ndarray:
        """The four corners of the grid in the map frame, shape (4, 2) [m]."""
        width, height = self.size_m
        local = np.array([[0.0, 0.0], [width, 0.0], [width, height], [0.0, height]])
        c, s = math.cos(self.origin_yaw), math.sin(self.origin_yaw)
        return local @ np.array([[c, s], [-s, c]]) + [self.origin_x, self.origin_y]


@dataclass
class Run:
    """A recorded run: the recording (topics, times, header facts), the vehicles by name, the map, and the time
    origin t0_ns [ns] (first log time; every series' t is counted from it); invalid_samples: per topic the
    samples dropped for a value that is not a finite number within ±VALUE_BOUND; notes: other things left out,
    one sentence each; watchdog: the command watchdog the commands are drawn with; world: the world's blocks."""

    recording: Recording
    vehicles: dict[str, VehicleSeries]
    grid: OccupancyMap | None
    t0_ns: int
    invalid_samples: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    watchdog: Watchdog = field(default_factory=lambda: Watchdog(1.0, False))
    world: WorldBlocks = field(default_factory=lambda: WorldBlocks([], []))

    @property
    def duration_s(self) -> float:
        """Simulated time from the first to the last message [s]."""
        span = self.recording.time_span_ns
        return (span[1] - span[0]) * 1e-9 if span else 0.0


def _yaw(q) -> float:
    """Yaw [rad] of a quaternion (ZYX convention)."""
    return math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


def _odometry(msg) -> tuple:
    pose, twist = msg.pose.pose, msg.twist.twist
    return pose.position.x, pose.position.y, _yaw(pose.orientation), twist.linear.x, twist.angular.z


def _twist(msg) -> tuple:
    twist = msg.twist if hasattr(msg, "twist") else msg
    return twist.linear.x, twist.angular.z


def _ackermann(msg) -> tuple:
    drive = msg.drive if hasattr(msg, "drive") else msg
    return drive.speed, drive.steering_angle


def _bool(msg) -> tuple:
    return (bool(msg.data),)


@latest_only
def _grid(msg) -> tuple:
    info = msg.info
    cells = np.asarray(msg.data, dtype=np.int8).reshape(info.height, info.width)
    origin = info.origin
    return cells, info.resolution, origin.position.x, origin.position.y, _yaw(origin.orientation)


#: (last topic segment, accepted types, reducer, column names)
_KINDS: dict[str, tuple[tuple[str, ...], Callable[[Any], tuple], tuple[str, ...]]] = {
    "base_pose_ground_truth": ((ODOMETRY,), _odometry, ("x", "y", "yaw", "v", "w")),
    "odom": ((ODOMETRY,), _odometry, ("x", "y", "yaw", "v", "w")),
    "cmd_vel": (TWIST_TYPES, _twist, ("v", "w")),
    "ackermann_cmd": (ACKERMANN_TYPES, _ackermann, ("speed", "steering")),
    "collision": ((BOOL,), _bool, ("data",)),
}


#: Kinds whose second message type the recording keeps on `<topic>/<Type>` (the node takes two types there).
COMMAND_KINDS = ("cmd_vel", "ackermann_cmd")


def split_topic(topic: str) -> tuple[str, str]:
    """(vehicle prefix, last segment) of a topic, leading '/' dropped: '/veh1/odom' -> ('veh1/', 'odom')."""
    name = topic.lstrip("/")
    prefix, _, last = name.rpartition("/")
    return (prefix + "/" if prefix else ""), last


def topic_kind(topic: str) -> tuple[str, str]:
    """(vehicle prefix, kind) of a topic: its last segment, except for a command recorded as a second type on
    `<veh>/cmd_vel/<Type>` (or `ackermann_cmd`), whose kind is the command's: '/r1/cmd_vel/TwistStamped' ->
    ('r1/', 'cmd_vel')."""
    prefix, last = split_topic(topic)
    if last not in _KINDS:
        owner_prefix, owner = split_topic(prefix.rstrip("/"))
        if owner in COMMAND_KINDS:
            return owner_prefix, owner
    return prefix, last


def vehicle_name(prefix: str) -> str:
    """The name shown for a vehicle prefix: 'veh1/' -> 'veh1', '' -> DEFAULT_VEHICLE."""
    return prefix.strip("/") or DEFAULT_VEHICLE


def select_topic(topic: str, type_name: str) -> Callable[[Any], tuple] | None:
    """The reducer for a topic this report decodes, or None (counted only)."""
    prefix, last = topic_kind(topic)
    if type_name == GRID and topic.lstrip("/") == MAP_TOPIC:
        return _grid
    kind = _KINDS.get(last)
    if kind is not None and type_name in kind[0]:
        return kind[1]
    return None


def _series(recording: Recording, topic: str, columns: tuple[str, ...], t0_ns: int,
            invalid: dict[str, int]) -> Series | None:
    """The decoded samples of `topic` in time order; those with a value beyond ±VALUE_BOUND or not finite are
    dropped and counted in `invalid`."""
    decoded = recording.decoded.get(topic)
    if decoded is None or not decoded.times:
        return None
    times = np.frombuffer(decoded.times, dtype=np.int64)
    order = np.argsort(times, kind="stable")
    rows = decoded.rows().reshape(len(times), len(columns))[order]
    valid = np.all(np.abs(rows) <= VALUE_BOUND, axis=1)  # False for NaN and inf too
    if not valid.all():
        invalid[topic] = int(np.count_nonzero(~valid))
        order, rows = order[valid], rows[valid]
    return Series((times[order] - t0_ns) * 1e-9, {name: rows[:, k] for k, name in enumerate(columns)})


def merged_series(parts: list[Series | None]) -> Series | None:
    """The samples of several series of the same columns as one, in time order (stable: at equal times, in the
    order of `parts`); None when none has samples."""
    present = [part for part in parts if part is not None and len(part)]
    if len(present) <= 1:
        return present[0] if present else None
    t = np.concatenate([part.t for part in present])
    order = np.argsort(t, kind="stable")
    return Series(t[order], {name: np.concatenate([part[name] for part in present])[order]
                             for name in present[0].columns})


def collision_spans(flags: Series | None, end_s: float, truth: Series | None = None) -> list[CollisionSpan]:
    """Spans of contact from a series of collision flags (column 'data', 1 = true): each starts at a true that
    follows a false (or none) and ends at the next false, or at `end_s` [s] (then marked open). Each span's
    position is the ground-truth pose nearest in time to its start."""
    spans: list[CollisionSpan] = []
    if flags is None:
        return spans
    start = None
    for t, value in zip(flags.t.tolist(), flags["data"].tolist()):
        if value and start is None:
            start = t
        elif not value and start is not None:
            spans.append(CollisionSpan(start, t))
            start = None
    if start is not None:
        spans.append(CollisionSpan(start, max(end_s, start), open=True))
    if truth is not None and len(truth):
        for span in spans:
            k = nearest_index(truth.t, span.start)
            span.x, span.y = float(truth["x"][k]), float(truth["y"][k])
    return spans


def nearest_index(times: np.ndarray, t: float) -> int:
    """Index of the sample of sorted `times` [s] nearest to `t` [s]."""
    k = int(np.searchsorted(times, t))
    if k >= len(times):
        return len(times) - 1
    if k > 0 and t - times[k - 1] <= times[k] - t:
        return k - 1
    return k


def _grid_of(recording: Recording, notes: list[str]) -> OccupancyMap | None:
    """The latest occupancy grid recorded; None without one, or (with a note) when its placement is not finite
    numbers within ±VALUE_BOUND [m]."""
    for topic in (MAP_TOPIC, "/" + MAP_TOPIC):
        decoded = recording.decoded.get(topic)
        if decoded is not None and decoded.latest is not None:
            cells, resolution, x, y, yaw = decoded.latest
            if not cells.size:
                continue
            extent = max(cells.shape) * float(resolution)
            if not (all(abs(value) <= VALUE_BOUND for value in (float(x), float(y), float(yaw), extent))
                    and 0.0 < float(resolution) <= VALUE_BOUND):
                notes.append(f"The occupancy grid of {topic} is not drawn: its resolution, origin or size is not a "
                             f"finite number within ±{VALUE_BOUND:g} (a positive one for the resolution).")
                continue
            return OccupancyMap(cells, float(resolution), float(x), float(y), float(yaw))
    return None


def run_from_recording(recording: Recording) -> Run:
    """Group the decoded topics of a recording by vehicle (see the module's docstring)."""
    span = recording.time_span_ns
    t0_ns = span[0] if span else 0
    end_s = (span[1] - t0_ns) * 1e-9 if span else 0.0
    topics: dict[str, dict[str, list[str]]] = {}  # prefix -> kind -> topics (a command's types: several)
    for topic in recording.decoded:
        prefix, last = topic_kind(topic)
        if last in COMMAND_KINDS:
            topics.setdefault(prefix, {}).setdefault(last, []).append(topic)
        elif last in _KINDS:
            topics.setdefault(prefix, {})[last] = [topic]
    vehicles: dict[str, VehicleSeries] = {}
    invalid: dict[str, int] = {}
    notes: list[str] = []
    for prefix in sorted(topics):
        found = topics[prefix]
        if "odom" not in found and "base_pose_ground_truth" not in found:
            continue
        series = {last: merged_series([_series(recording, topic, _KINDS[last][2], t0_ns, invalid) for topic in named])
                  for last, named in found.items()}
        vehicle = VehicleSeries(vehicle_name(prefix), prefix, truth=series.get("base_pose_ground_truth"),
                                odom=series.get("odom"), cmd_vel=series.get("cmd_vel"),
                                ackermann=series.get("ackermann_cmd"))
        if vehicle.truth is None and vehicle.odom is None:
            continue
        vehicle.collisions = collision_spans(series.get("collision"), end_s, vehicle.truth)
        if vehicle.name in vehicles:  # '' and 'vehicle/' both read 'vehicle': keep the second by its prefix
            vehicle.name = prefix
        vehicles[vehicle.name] = vehicle
    grid = _grid_of(recording, notes)
    blocks = world_blocks(recording.world_xml, recording.metadata_value(*WORLD_METADATA), recording.metadata)
    return Run(recording, vehicles, grid, t0_ns, invalid, notes + blocks.notes, watchdog_of(recording.metadata_value),
               blocks)


def read_run(path: str | Path) -> Run:
    """Read an MCAP recording of a run (one pass, see mvsim_ros.report.recording) into a Run.

    Raises mvsim_ros.report.recording.RecordingError when the file is missing, unreadable or not MCAP.
    """
    return run_from_recording(read_recording(path, select_topic))
