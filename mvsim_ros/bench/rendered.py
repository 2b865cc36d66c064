"""The rendered-sensor benchmark (`python -m mvsim_ros.bench --rendered`): on worlds with cameras, RGB-D cameras and
3D lidars, the node's real-time factor (from /clock) beside what the renderer alone does on the same scene and
sensors.

Renderer alone: the world's physics (the runtime Runner, vehicles driving as in the node benchmark) and, at each
instant a rendered sensor is due, every view it needs drawn and read back into buffers kept from frame to frame —
a camera's image(s), a 3D lidar's four faces (with their colours when it makes intensities), a raytrace_3d 2D
lidar's faces — and nothing else: no depth quantisation or noise, no resampling into beams, no messages, no ROS, no
Box2D-ray-cast sensors. The node does all of that, and publishes.

Frames/s: camera frames (one per camera sample, RGB and/or depth) per second of wall time; points/s: 3D lidar beams
plus RGB-D depth pixels per second of wall time; both derived from the sensors' periods and the real-time factor
(node: every sample of the simulated time is rendered, whether anyone subscribes or not).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class _View:
    """One draw of a rendered sensor: its framebuffer, intrinsics, pose on the host (4x4), what it reads back."""

    target: object
    intrinsics: object
    host_from_optical: np.ndarray
    want_rgb: bool
    want_depth: bool
    rgb: np.ndarray | None = None
    depth: np.ndarray | None = None


def _views(sensor, ctx) -> list[_View]:
    """The draws of one camera, 3D lidar or raytrace_3d 2D lidar (its `render_views`), each with its own framebuffer
    and buffers."""
    from mvsim_ros.sensors.camera import RenderTarget

    views = []
    for intrinsics, pose, want_rgb, want_depth in sensor.render_views():
        rows, cols = intrinsics.nrows, intrinsics.ncols
        views.append(_View(RenderTarget(ctx, cols, rows), intrinsics, pose, want_rgb, want_depth,
                           np.empty((rows, cols, 3), dtype=np.uint8) if want_rgb else None,
                           np.empty((rows, cols), dtype=np.float32) if want_depth else None))
    return views


class _RenderOnly:
    """A Runner sink rendering and reading back the views of every rendered sensor when it is due."""

    def __init__(self, sim, sensors):
        from mvsim_ros.sensors.scene import Scene

        self.sim = sim
        self.scene = Scene(sim.spec, warn=lambda _message: None)
        rendered = [*sensors.cameras, *sensors.lidars3d, *(s for s in sensors.lidars if s.raytrace_3d)]
        self.sensors = [(sensor, _views(sensor, self.scene.ctx)) for sensor in rendered]

    def next_due(self) -> float:
        return min((sensor.schedule.next_time for sensor, _ in self.sensors), default=float("inf"))

    def serve_due(self) -> None:
        from mvsim_ros.sensors.camera import OPTICAL_TO_GL
        from mvsim_ros.sensors.host_placement import host_matrix
        from mvsim_ros.sensors.suite import host_pose3

        now, updated = self.sim.time, False
        for sensor, views in self.sensors:
            if not sensor.due(now):
                continue
            if not updated:
                self.scene.update(self.sim)
                updated = True
            base = host_matrix(host_pose3(self.sim, sensor.vehicle))
            for view in views:
                view.target.start(view.want_rgb)
                self.scene.draw(OPTICAL_TO_GL @ np.linalg.inv(base @ view.host_from_optical),
                                view.intrinsics.projection(), view.intrinsics.clip_max)
            for view in views:
                if view.want_rgb:
                    view.target.read_rgb(view.rgb)
                if view.want_depth:
                    view.target.read_depth(view.depth)


def renderer_rtf(world_file: Path, wall_seconds: float) -> float:
    """Real-time factor of the physics plus the rendered sensors' draws and read-backs alone (module docstring) on
    `world_file`, vehicles driving as in the node benchmark, after a 0.5 s (simulated) warm-up."""
    from mvsim_ros.bench.node import world_row
    from mvsim_ros.bench.node_rtf import runner_rtf

    return runner_rtf(world_row(world_file), wall_seconds, _RenderOnly)


def sensor_rates(world_file: Path) -> tuple[float, float]:
    """(camera frames, 3D lidar beams + RGB-D depth pixels) per second of simulated time on `world_file`, from the
    sensors' periods."""
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world

    sensors = build_sensors(load_world(world_file))
    frames = sum(1.0 / cam.period for cam in sensors.cameras if cam.period)
    points = sum(lidar.rings * lidar.columns / lidar.period for lidar in sensors.lidars3d if lidar.period)
    points += sum(cam.depth.ncols * cam.depth.nrows / cam.period for cam in sensors.cameras
                  if cam.period and cam.depth is not None)
    return frames, points


def rendered_table(worlds: list[Path], wall_seconds: float, repeat: int, out=print) -> list[dict]:
    """Print (through `out`) and return, per world: the node's real-time factor (median of `repeat` runs of
    `wall_seconds`, from /clock), the renderer alone's (best of `repeat`), the camera frames/s and points/s of
    each (from the sensors' periods and the real-time factor), and node / renderer."""
    from mvsim_ros.bench.node import world_row
    from mvsim_ros.bench.node_process import default_domain_id
    from mvsim_ros.bench.node_rtf import node_rtf
    from mvsim_ros.sensors.gl_context import gl_renderer

    default_domain_id()
    out(f"rendered sensors: node at realtime_factor 0 (median of {repeat} x {wall_seconds:g} s, from /clock) vs the "
        f"renderer alone (physics + draws + read-backs, best of {repeat}); renderer: {gl_renderer()}")
    out(f"\n{'world':<22} {'node':>7} {'render':>7} {'ratio':>6} {'node fr/s':>10} {'rend fr/s':>10} "
        f"{'node pts/s':>11} {'rend pts/s':>11}")
    rows = []
    for world in worlds:
        world = Path(world)
        node = statistics.median(node_rtf(world_row(world), wall_seconds).rtf for _ in range(repeat))
        alone = max(renderer_rtf(world, wall_seconds) for _ in range(repeat))
        frames, points = sensor_rates(world)
        row = {"world": world.name.removesuffix(".world.xml"), "node_rtf": node, "renderer_rtf": alone,
               "ratio": node / alone if alone > 0 else float("nan"),
               "node_frames_per_s": node * frames, "renderer_frames_per_s": alone * frames,
               "node_points_per_s": node * points, "renderer_points_per_s": alone * points}
        out(f"{row['world']:<22} {node:6.1f}x {alone:6.1f}x {row['ratio']:6.2f} {row['node_frames_per_s']:10.1f} "
            f"{row['renderer_frames_per_s']:10.1f} {row['node_points_per_s']:11.3g} "
            f"{row['renderer_points_per_s']:11.3g}")
        rows.append(row)
    return rows


__all__ = ["renderer_rtf", "rendered_table", "sensor_rates"]
