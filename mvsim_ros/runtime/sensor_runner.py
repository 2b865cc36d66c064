"""The one place sensors are measured: each sensor samples when due on the simulated clock, keeps its output in its
`latest` (what the viewer shows) and hands it to whoever publishes or records it (`Measured`).

2D lidars ray cast in Box2D, or with `raytrace_3d` render a GL scene of the world; cameras and 3D lidars render
it; IMUs and GNSS receivers read the host's motion (the due IMUs in one compiled call). The scene is built once and
updated once per instant when something rendered is due. Without an OpenGL context the runner warns once:
raytrace_3d lidars ray cast in 2D instead, and cameras and 3D lidars are not measured.

A front end may measure some 2D lidars itself (the compiled fast path measures them inside the steps): it names
them with `hand_over`; they leave `next_due()`, and are measured here only when still due (a scan handed back).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from mvsim_ros.sensors.gl_context import GlUnavailable
from mvsim_ros.sensors.imu import ImuReading, imu_readings
from mvsim_ros.sensors.suite import host_motion, host_pose3

LOG = logging.getLogger("mvsim_ros.runtime")


@dataclass
class Measured:
    """What was measured at one instant: (index in the runner's list, reading) per sensor kind.

    scans: 2D lidar ranges [m] (+inf: no return); clouds: 3D lidar ranges [m] as Lidar3D.scan returns them;
    frames: camera frames (CameraFrame); imus: ImuReading; fixes: GnssFix.
    """

    time: float
    scans: list[tuple[int, np.ndarray]] = field(default_factory=list)
    imus: list[tuple[int, ImuReading]] = field(default_factory=list)
    fixes: list[tuple[int, object]] = field(default_factory=list)
    clouds: list[tuple[int, np.ndarray]] = field(default_factory=list)
    frames: list[tuple[int, object]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.scans or self.imus or self.fixes or self.clouds or self.frames)


class SensorRunner:
    """Measures the sensors of `sensors` (a sensors.suite.Sensors, or None: nothing to measure) on Simulation `sim`.

    warn: where warnings go (no OpenGL context, visual models drawn as stand-ins); default: the
    "mvsim_ros.runtime" logger. on_measured: called with each non-empty Measured (e.g. publishers).
    """

    def __init__(self, sim, sensors, warn: Callable[[str], None] | None = None,
                 on_measured: Callable[[Measured], None] | None = None):
        self.sim = sim
        self.warn = warn or LOG.warning
        self.on_measured = on_measured
        self.lidars = list(sensors.lidars) if sensors is not None else []
        self.imus = list(sensors.imus) if sensors is not None else []
        self.gnss = list(sensors.gnss) if sensors is not None else []
        self.cameras = list(sensors.cameras) if sensors is not None else []
        self.lidars3d = list(sensors.lidars3d) if sensors is not None else []
        self._imu_offsets = np.array([[s.spec.pose.x, s.spec.pose.y] for s in self.imus], dtype=float).reshape(-1, 2)
        self._imu_mounts = np.array([s.mount for s in self.imus], dtype=float).reshape(-1, 3, 3)
        #: The GL scene of the rendered sensors (None when there are none or no OpenGL context).
        self.scene = None
        gpu = [lidar for lidar in self.lidars if lidar.raytrace_3d]
        if gpu or self.cameras or self.lidars3d:
            try:
                from mvsim_ros.sensors.scene import Scene

                self.scene = Scene(sim.spec, warn=self.warn)
            except GlUnavailable as exc:
                self.warn(f"no OpenGL context: {len(gpu)} lidar(s) with raytrace_3d ray cast in 2D instead; "
                          f"{len(self.cameras)} camera(s) and {len(self.lidars3d)} 3D lidar(s) not simulated: {exc}")
                for lidar in gpu:
                    lidar.raytrace_3d = False
                self.cameras, self.lidars3d = [], []
        self.hand_over([])

    def hand_over(self, lidars) -> None:
        """2D lidars that a front end measures itself while they are due (see the module docstring)."""
        taken = {id(lidar) for lidar in lidars}
        own = [lidar for lidar in self.lidars if id(lidar) not in taken]
        self._own_schedules = [s.schedule for s in [*own, *self.imus, *self.gnss, *self.lidars3d, *self.cameras]]
        self._every_schedule = [s.schedule for s in [*self.lidars, *self.imus, *self.gnss, *self.lidars3d,
                                                     *self.cameras]]
        self._active = [s for s in self._own_schedules if s.period is not None]

    def schedules(self, handed_over: bool = False) -> list:
        """The sample schedules (core.schedule.Periodic) of the sensors measured here, the handed-over lidars' too
        when `handed_over`."""
        return list(self._every_schedule if handed_over else self._own_schedules)

    def next_due(self) -> float:
        """Simulated time [s] at which a sensor measured here is next due (math.inf: never)."""
        due = math.inf
        for schedule in self._active:
            if schedule.next_time < due:
                due = schedule.next_time
        return due

    def serve_due(self) -> None:
        """Measure with every sensor due now, and hand what was measured to `on_measured`."""
        measured = self.run_due()
        if measured and self.on_measured is not None:
            self.on_measured(measured)

    def run_due(self) -> Measured:
        """Measure with every sensor due at the simulation's current time (call after each step, or at each
        instant something is due) and return what was measured, in the order lidars, IMUs, GNSS receivers, 3D
        lidars, cameras."""
        sim = self.sim
        now = sim.time
        out = Measured(now)
        lidars = [i for i, lidar in enumerate(self.lidars) if lidar.due(now)]
        rendered = [i for i in lidars if self.lidars[i].raytrace_3d and self.scene is not None]
        lidars3d = [i for i, lidar in enumerate(self.lidars3d) if lidar.due(now)]
        cameras = [i for i, cam in enumerate(self.cameras) if cam.due(now)]
        if rendered or lidars3d or cameras:
            self.scene.update(sim)
            # Every view drawn first (the rendered 2D lidars', the 3D lidars', the cameras') and read back after:
            # the renderer draws while the next views are submitted, and the first read waits for all of them.
            for index in rendered:
                self.lidars[index].submit_render(self.scene, host_pose3(sim, self.lidars[index].vehicle))
            for index in lidars3d:
                self.lidars3d[index].submit(self.scene, host_pose3(sim, self.lidars3d[index].vehicle))
            for index in cameras:
                self.cameras[index].submit(self.scene, host_pose3(sim, self.cameras[index].vehicle))
        for index in lidars:
            lidar = self.lidars[index]
            if index in rendered:
                ranges = lidar.collect_render()
            else:
                ranges = lidar.scan(sim.box2d.world, host_pose3(sim, lidar.vehicle))
            out.scans.append((index, ranges))
        due_imus = [i for i, imu in enumerate(self.imus) if imu.due(now)]
        if due_imus:
            out.imus = list(zip(due_imus, self._read_imus(due_imus)))
        for index, gnss in enumerate(self.gnss):
            if gnss.due(now):
                out.fixes.append((index, gnss.read(host_pose3(sim, gnss.vehicle))))
        out.clouds = [(index, self.lidars3d[index].collect()) for index in lidars3d]
        out.frames = [(index, self.cameras[index].collect()) for index in cameras]
        return out

    def _read_imus(self, due: list[int]) -> list[ImuReading]:
        """The readings of the IMUs at indices `due` (their noise-free parts in one compiled call, then each one's
        noise, in index order)."""
        sim, imus = self.sim, [self.imus[i] for i in due]
        motion = [host_motion(sim, imu.vehicle) for imu in imus]
        gyro, accel, frames = imu_readings(np.array([host_pose3(sim, imu.vehicle) for imu in imus]),
                                           np.array([m[1] for m in motion], dtype=float),
                                           np.array([m[2] for m in motion], dtype=float), self._imu_offsets[due],
                                           self._imu_mounts[due], imus[0].gravity)
        readings = [imu.finish(gyro[j], accel[j], frames[j]) for j, imu in enumerate(imus)]
        for imu, reading in zip(imus, readings):
            imu.latest = reading
        return readings
