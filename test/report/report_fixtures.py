"""Fixture recordings for the report's tests: MCAP files laid out as rosbag2 writes them (profile ros2, ros2msg
schemas, CDR messages serialized by rclpy, chunked and compressed), with runs whose true values are known.

A helper module imported by the tests of this folder (not a conftest.py: see test/browser_support.py).
"""

from __future__ import annotations

import io
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mcap.writer import CompressionType, Writer

MSG_ROOT = Path(sys.prefix) / "share"
PRIMITIVES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
              "int64", "uint64", "string", "wstring"}
SEPARATOR = "=" * 80


def _msg_text(type_name: str) -> str:
    package, _, name = type_name.partition("/msg/")
    return (MSG_ROOT / package / "msg" / f"{name}.msg").read_text()


def _dependencies(type_name: str) -> list[str]:
    """Types the fields of `type_name` use (pkg/msg/Type), directly, in order of appearance."""
    package = type_name.partition("/")[0]
    found = []
    for line in _msg_text(type_name).splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        field_type = line.split()[0]
        if "=" in line.split(None, 1)[1] and "=" not in field_type and line.split()[1].isupper():
            continue  # a constant
        base = re.sub(r"\[.*\]$", "", field_type)
        base = re.sub(r"<=\d+$", "", base)
        if base in PRIMITIVES:
            continue
        if base == "Header":
            full = "std_msgs/msg/Header"
        elif "/" in base:
            pkg, _, name = base.rpartition("/")
            full = f"{pkg.split('/')[0]}/msg/{name}"
        else:
            full = f"{package}/msg/{base}"
        if full not in found:
            found.append(full)
    return found


def schema_text(type_name: str) -> str:
    """The ros2msg schema of `type_name` ('nav_msgs/msg/Odometry') as rosbag2 composes it: the type's .msg text,
    then per dependency (depth first, each once) a line of 80 '=', 'MSG: pkg/Type' and that type's text."""
    order: list[str] = []

    def visit(name: str) -> None:
        for dependency in _dependencies(name):
            if dependency not in order:
                order.append(dependency)
                visit(dependency)

    visit(type_name)
    parts = [_msg_text(type_name).rstrip("\n")]
    for dependency in order:
        package, _, name = dependency.partition("/msg/")
        parts += [SEPARATOR, f"MSG: {package}/{name}", _msg_text(dependency).rstrip("\n")]
    return "\n".join(parts) + "\n"


class RunWriter:
    """An MCAP recording being written: channels registered on first use, messages serialized with rclpy, log time
    = the simulated stamp [s] given."""

    def __init__(self, output, compression: CompressionType = CompressionType.ZSTD, chunk_size: int = 32 * 1024):
        self.writer = Writer(output, chunk_size=chunk_size, compression=compression)
        self.writer.start(profile="ros2", library="mvsim_ros test fixtures")
        self.schemas: dict[str, int] = {}
        self.channels: dict[str, int] = {}

    def channel(self, topic: str, type_name: str) -> int:
        if topic not in self.channels:
            if type_name not in self.schemas:
                self.schemas[type_name] = self.writer.register_schema(type_name, "ros2msg",
                                                                      schema_text(type_name).encode())
            self.channels[topic] = self.writer.register_channel(topic, "cdr", self.schemas[type_name])
        return self.channels[topic]

    def write(self, topic: str, message, t_s: float) -> None:
        from rclpy.serialization import serialize_message

        module = type(message).__module__.split(".")[0]
        type_name = f"{module}/msg/{type(message).__name__}"
        stamp = int(round(t_s * 1e9))
        self.writer.add_message(self.channel(topic, type_name), log_time=stamp, data=serialize_message(message),
                                publish_time=stamp)

    def finish(self) -> None:
        self.writer.finish()


def odometry(t_s: float, x: float, y: float, yaw: float, v: float, w: float, frame: str, child: str = "base_link"):
    from nav_msgs.msg import Odometry

    msg = Odometry()
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(int(round(t_s * 1e9)), 1_000_000_000)
    msg.header.frame_id, msg.child_frame_id = frame, child
    msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
    msg.pose.pose.orientation.z, msg.pose.pose.orientation.w = math.sin(yaw / 2.0), math.cos(yaw / 2.0)
    msg.twist.twist.linear.x, msg.twist.twist.angular.z = v, w
    return msg


def twist(v: float, w: float):
    from geometry_msgs.msg import Twist

    msg = Twist()
    msg.linear.x, msg.angular.z = v, w
    return msg


def boolean(value: bool):
    from std_msgs.msg import Bool

    return Bool(data=value)


def grid_message(width: int = 80, height: int = 60, resolution: float = 0.25, origin=(-10.0, -5.0)):
    """An occupancy grid with a wall of occupied cells (100) along its border, one occupied cell at (3, 2), the rest
    free (0) except one unknown row (-1) at the top."""
    from nav_msgs.msg import OccupancyGrid

    cells = [0] * (width * height)
    for row in range(height):
        for col in range(width):
            if row in (0, height - 2) or col in (0, width - 1):
                cells[row * width + col] = 100
            if row == height - 1:
                cells[row * width + col] = -1
    cells[2 * width + 3] = 100
    msg = OccupancyGrid()
    msg.header.frame_id = "map"
    msg.info.width, msg.info.height, msg.info.resolution = width, height, resolution
    msg.info.origin.position.x, msg.info.origin.position.y = origin
    msg.info.origin.orientation.w = 1.0
    msg.data = cells
    return msg


@dataclass
class CircleRun:
    """What a circle run was written with: per vehicle (prefix -> (v [m/s], w [rad/s], centre offset x [m])),
    rates [Hz], length [s], collision times [s]."""

    vehicles: dict[str, tuple[float, float, float]] = field(default_factory=lambda: {"veh1/": (1.0, 0.5, 0.0)})
    seconds: float = 10.0
    truth_hz: float = 50.0
    odom_hz: float = 25.0
    cmd_hz: float = 10.0
    scan_hz: float = 10.0
    collision: tuple[float, float | None] | None = (3.0, 4.5)
    with_map: bool = True
    world_file: str | None = "worlds/demo_2robots.world.xml"
    odom_scale: float = 1.02  # the wheel odometry over-reads distances by this factor

    @staticmethod
    def pose(v: float, w: float, t: float, scale: float = 1.0) -> tuple[float, float, float]:
        """Pose (x, y [m], yaw [rad]) on a circle of radius scale v / w from (0, 0) heading +x at t = 0."""
        radius = scale * v / w
        yaw = math.atan2(math.sin(w * t), math.cos(w * t))
        return radius * math.sin(w * t), radius * (1.0 - math.cos(w * t)), yaw


def _ticks(rate_hz: float, seconds: float) -> list[float]:
    """Stamps [s] k / rate for k = 0 .. seconds * rate (exact multiples of the period in ns)."""
    period_ns = int(round(1e9 / rate_hz))
    return [k * period_ns * 1e-9 for k in range(int(round(seconds * rate_hz)) + 1)]


def write_circle_run(writer: RunWriter, run: CircleRun) -> None:
    """Write vehicles driving circles (ground truth, wheel odometry, cmd_vel steps, a collision, a lidar-sized
    blob topic, the map latched at t = 0, and the world's name as metadata)."""
    from std_msgs.msg import UInt8MultiArray

    if run.world_file is not None:
        writer.writer.add_metadata("mvsim", {"world_file": run.world_file})
    if run.with_map:
        writer.write("/simul_map", grid_message(), 0.0)
    events: list[tuple[float, str, object]] = []
    for prefix, (v, w, dx) in run.vehicles.items():
        for t in _ticks(run.truth_hz, run.seconds):
            x, y, yaw = CircleRun.pose(v, w, t)
            events.append((t, f"/{prefix}base_pose_ground_truth", odometry(t, x + dx, y, yaw, v, w, "map")))
        for t in _ticks(run.odom_hz, run.seconds):
            x, y, yaw = CircleRun.pose(v, w, t, run.odom_scale)
            events.append((t, f"/{prefix}odom", odometry(t, x, y, yaw, v * run.odom_scale, w, "odom")))
        for t in _ticks(run.cmd_hz, run.seconds):
            events.append((t, f"/{prefix}cmd_vel", twist(v if t > 0.5 else 0.0, w if t > 0.5 else 0.0)))
        for t in _ticks(run.scan_hz, run.seconds):
            events.append((t, f"/{prefix}scan", UInt8MultiArray(data=bytes(720))))
        if run.collision is not None:
            start, end = run.collision
            events.append((start, f"/{prefix}collision", boolean(True)))
            if end is not None:
                events.append((end, f"/{prefix}collision", boolean(False)))
    events.sort(key=lambda event: event[0])
    for t, topic, message in events:
        writer.write(topic, message, t)


def circle_recording(path: Path, run: CircleRun | None = None, compression=CompressionType.ZSTD) -> CircleRun:
    """Write a complete circle recording to `path`; returns what it was written with."""
    run = run or CircleRun()
    with open(path, "wb") as handle:
        writer = RunWriter(handle, compression)
        write_circle_run(writer, run)
        writer.finish()
    return run


def chunk_spans(data: bytes) -> list[tuple[int, int, int]]:
    """(start offset, end offset, last log time [ns]) of every chunk record of the MCAP bytes `data`, in order."""
    from mcap import records
    from mcap.stream_reader import StreamReader, breakup_chunk

    stream = io.BytesIO(data)
    spans, previous_end = [], 0
    try:
        for record in StreamReader(stream, emit_chunks=True).records:
            end = stream.tell()
            if isinstance(record, records.Chunk):
                last = max(m.log_time for m in breakup_chunk(record) if isinstance(m, records.Message))
                spans.append((previous_end, end, last))
            previous_end = end
    except Exception:  # the bytes end without a footer: everything before was read
        pass
    return spans


def killed_recording(path: Path, run: CircleRun | None = None, partial_tail: bool = True) -> tuple[CircleRun, float]:
    """A recording as a recorder killed with SIGKILL leaves it: the chunks completed so far (the chunk being filled
    is lost) and no data end, summary or footer; with `partial_tail` the last completed chunk is also cut in its
    middle. Returns the run and the last log time [s] of the complete chunks kept."""
    run = run or CircleRun()
    buffer = io.BytesIO()
    writer = RunWriter(buffer, CompressionType.LZ4, chunk_size=16 * 1024)
    write_circle_run(writer, run)
    data = buffer.getvalue()  # what reached the file: no flush, no finish
    spans = chunk_spans(data)
    assert len(spans) >= 3, "the fixture needs several chunks"
    if partial_tail:
        start, end, _ = spans[-1]
        path.write_bytes(data[:start + (end - start) // 2])
        return run, spans[-2][2] * 1e-9
    path.write_bytes(data[:spans[-1][1]])
    return run, spans[-1][2] * 1e-9
