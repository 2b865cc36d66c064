"""What the simulator node (ros/node/simulator_node.py) builds first as it starts, and what it says once started.

`load_simulation` reads the world and builds the Simulation and the runtime Runner around it, returning them with
the vehicles' topic prefixes and the warnings to say (a `StartParts`); the node then builds its session, services
and viewer on them. `start_up_messages` is every line the node logs once it has started, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.ros.node.parameters import load_limits
from mvsim_ros.ros.node.signals import StopSignals
from mvsim_ros.ros.topics import ros_safe_names, vehicle_prefix
from mvsim_ros.runtime.runner import Runner
from mvsim_ros.world import load_world
from mvsim_ros.world.specs import WorldSpec


@dataclass
class StartParts:
    """The simulation a node starts with."""

    #: The world as loaded, its names made ROS topic names: what a full reset goes back to.
    spec: WorldSpec
    sim: Simulation
    runner: Runner
    #: Topic prefix of each vehicle ('<veh>/' or ''), in the simulation's vehicle order.
    prefixes: list[str]
    #: Warnings about the world (its file's, renamed names, Box2D settings, no compiled batches), in that order.
    warnings: list[str]


def load_simulation(p: dict[str, Any], world_file: str, stop: StopSignals) -> StartParts:
    """Load `world_file` with the node's checked parameters `p` (a signal interrupts a slow load at once), make its
    names ROS topic names, and build the Simulation and its Runner; `stop.check()` (Interrupted on a stop signal)
    once they are built."""
    with stop.interruptible():  # a slow world load ends at once on a signal
        spec = load_world(world_file, random_seed=p["random_seed"], allow_shell=p["allow_shell_in_world"],
                          limits=load_limits(p))
    forced = p["force_publish_vehicle_namespace"]
    spec, renamed = ros_safe_names(spec, forced)
    sim = Simulation(spec, command_timeout=p["base_watchdog_timeout"])
    runner = Runner(sim, p["realtime_factor"])
    stop.check()
    warnings = spec.warnings + renamed + box2d_native.setting_warnings()
    if not box2d_native.AVAILABLE:
        warnings.append(f"stepping without compiled batches (slower): {box2d_native.UNAVAILABLE_REASON}")
    count = len(sim.vehicle_names)
    prefixes = [vehicle_prefix(name, count, forced) for name in sim.vehicle_names]
    return StartParts(spec, sim, runner, prefixes, warnings)


def start_up_messages(node: Any, spec: WorldSpec) -> list[tuple[str, str]]:
    """(level 'info' or 'warning', text) of every line a started simulator node (an MvsimNode) says, in order:
    its ground-truth files, the world, the OpenGL renderer of rendered sensors, what the compiled steps publish,
    the recording, the viewer's address and how to drive a vehicle."""
    lines = []
    if node.ground_truth is not None:
        names = ", ".join(str(f) for f in node.ground_truth.file_names.values())
        lines.append(("info", f"ground-truth trajectories every {node.ground_truth.period_s:g} s to {names}"))
    sim, session = node.sim, node.session
    lines.append(("info", f"world {spec.source_file}: vehicles [{', '.join(sim.vehicle_names)}], "
                          f"{len(spec.blocks)} blocks, dt={sim.dt * 1e3:g} ms, "
                          f"realtime_factor={node.realtime_factor:g}"))
    if session.sensor_runner.scene is not None:
        from mvsim_ros.sensors.gl_context import gl_renderer

        lines.append(("info", f"rendered sensors draw with OpenGL on {gl_renderer()} (an EGL device; "
                              "MVSIM_GL_DEVICE picks another)"))
    streams = session.streams
    if streams is not None:
        compiled, total = len(streams.scans.lidars) if streams.scans else 0, len(session.scans.lidars)
        scans = "" if not compiled else f" and {compiled} lidar(s)" if compiled == total else \
            f" and {compiled} of {total} lidars (the others, rendered through OpenGL, from Python)"
        lines.append(("info", f"/clock, odometry, ground truth, odom->base_link TF{scans} are published from the "
                              "compiled steps"))
    if node.recording is not None:
        recorder = node.recording.recorder
        if recorder.note:
            lines.append(("warning", recorder.note))
        lines.append(("info", f"recording the run into {recorder.path} (in place once the run starts, closed with "
                              "its summary at the end)"))
    if node.viewer is not None:
        lines.append(("info", f"viewer: open {node.viewer.url} in a browser (W/A/S/D or arrows drive the selected "
                              "vehicle, space stops)"))
    if session.prefixes:
        remap = f"--ros-args -r cmd_vel:=/{session.prefixes[0]}cmd_vel"
        lines.append(("info", f"drive it: mvsim_teleop {remap} (or, with a ROS 2 install: "
                              f"ros2 run teleop_twist_keyboard teleop_twist_keyboard {remap})"))
    return lines


__all__ = ["StartParts", "load_simulation", "start_up_messages"]
